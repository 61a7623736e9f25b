// Shared set-up of the wallet-server tests: real Postgres and Redis, an app on a fresh database,
// and a user who signs in with a real secp256k1 key.
import { getPublicKey, signAsync, utils } from '@noble/secp256k1';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../services/wallet-server/src/app.js';
import { loadConfig, type Config } from '../../services/wallet-server/src/config.js';
import { loginMessage } from '../../services/wallet-server/src/auth/keys.js';
import { startPostgres, startRedis, type RunningServer } from '../support/infra.js';

export const REGTEST_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

export interface Infra {
  postgres: RunningServer & { createDatabase(name: string): Promise<string> };
  redis: RunningServer;
  stop(): Promise<void>;
}

export async function startInfra(): Promise<Infra> {
  const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  return {
    postgres,
    redis,
    stop: async () => {
      await Promise.all([postgres.stop(), redis.stop()]);
    },
  };
}

let dbCounter = 0;

/** An app on its own new database; env entries override the defaults. */
export async function appOn(
  infra: Infra,
  env: Record<string, string> = {},
): Promise<{ app: FastifyInstance; config: Config }> {
  const databaseUrl = await infra.postgres.createDatabase(`ws_${process.pid}_${++dbCounter}`);
  const config = loadConfig({ DATABASE_URL: databaseUrl, REDIS_URL: infra.redis.url, ...env });
  return { app: await buildApp(config, { logger: false }), config };
}

export interface TestUser {
  secretKey: Uint8Array;
  pubkey: string;
  accessToken: string;
  refreshToken: string;
}

export function newKey(): { secretKey: Uint8Array; pubkey: string } {
  const secretKey = utils.randomSecretKey();
  return { secretKey, pubkey: Buffer.from(getPublicKey(secretKey, true)).toString('hex') };
}

/** Compact signature over sha256 of the login message, as a client makes it. */
export async function signNonce(secretKey: Uint8Array, nonce: string): Promise<string> {
  return Buffer.from(await signAsync(Buffer.from(loginMessage(nonce), 'utf8'), secretKey)).toString('hex');
}

export async function enrollAndSignIn(app: FastifyInstance, key = newKey()): Promise<TestUser> {
  const enroll = await app.inject({
    method: 'POST',
    url: '/auth/enroll',
    payload: { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS },
  });
  if (enroll.statusCode !== 200) throw new Error(`enroll: ${enroll.statusCode} ${enroll.body}`);
  return signIn(app, key);
}

export async function signIn(app: FastifyInstance, key: { secretKey: Uint8Array; pubkey: string }): Promise<TestUser> {
  const challenge = await app.inject({ url: `/auth/challenge?pubkey=${key.pubkey}` });
  if (challenge.statusCode !== 200) throw new Error(`challenge: ${challenge.statusCode} ${challenge.body}`);
  const { nonce } = challenge.json() as { nonce: string };
  const verify = await app.inject({
    method: 'POST',
    url: '/auth/verify',
    payload: { pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) },
  });
  if (verify.statusCode !== 200) throw new Error(`verify: ${verify.statusCode} ${verify.body}`);
  const tokens = verify.json() as { access_token: string; refresh_token: string };
  return { ...key, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** inject with a bearer credential (and optionally the wallet-key header). */
export function as(app: FastifyInstance, credential: string, walletKey?: string) {
  return (opts: InjectOptions) =>
    app.inject({
      ...opts,
      headers: {
        ...(opts.headers ?? {}),
        authorization: `Bearer ${credential}`,
        ...(walletKey ? { 'x-service-wallet-key': walletKey } : {}),
      },
    });
}

export async function createWallet(app: FastifyInstance, token: string, name = 'w'): Promise<string> {
  const res = await as(app, token)({ method: 'POST', url: '/wallets', payload: { name } });
  if (res.statusCode !== 200) throw new Error(`create wallet: ${res.statusCode} ${res.body}`);
  return (res.json() as { id: string }).id;
}

/** Funds a wallet through the ledger, as a received payment would. */
export async function fund(
  app: FastifyInstance,
  walletId: string,
  amountMsat: bigint,
  asset?: { assetId: string; amount: bigint },
) {
  await app.ledger.recordReceived({
    walletId,
    kind: 'invoice',
    amountMsat,
    paymentHash: `fund-${walletId}-${Date.now()}-${Math.random()}`,
    assetId: asset?.assetId ?? null,
    assetAmount: asset?.amount ?? null,
  });
}
