import type { FastifyServerOptions } from 'fastify';
import { chainConfigFromEnv } from '../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../lib/chain/types.js';
import { portFromEnv, positiveIntEnv } from '../../../lib/env.js';
import type { AssetOffer } from './asset-invoice.js';
import { defaultGateway } from './default-gateway.js';

export interface FaucetConfig {
  host: string;
  port: number;
  chain: ChainRpcConfig;
  redisUrl: string;
  claimSat: number;
  cooldownSeconds: number;
  mineUrl?: string;
  mineAddress?: string;
  adapterPublicUrl?: string;
  trustProxy: FastifyServerOptions['trustProxy'];
  /** The RGB asset the faucet gives, and the node serving RLN's API it pays from; none when unset. */
  asset?: AssetOffer & { nodeUrl: string };
}

const ASSET_VARIABLES = ['RGB_NODE_URL', 'ASSET_ID', 'ASSET_TICKER', 'ASSET_AMOUNT'] as const;

/** RGB_NODE_URL, ASSET_ID, ASSET_TICKER and ASSET_AMOUNT: all four (the faucet gives that asset) or none. */
export function assetFromEnv(env: NodeJS.ProcessEnv): FaucetConfig['asset'] {
  const missing = ASSET_VARIABLES.filter((name) => !env[name]);
  if (missing.length === ASSET_VARIABLES.length) return undefined;
  if (missing.length > 0)
    throw new Error(
      `the asset faucet needs ${ASSET_VARIABLES.join(', ')}; ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`,
    );
  return {
    nodeUrl: env.RGB_NODE_URL!,
    assetId: env.ASSET_ID!,
    ticker: env.ASSET_TICKER!,
    amount: positiveIntEnv(env, 'ASSET_AMOUNT', 0),
  };
}

/**
 * TRUST_PROXY: unset or "false" -> the client IP is the TCP peer; "true" -> the left-most
 * X-Forwarded-For; a number -> that many proxy hops; otherwise a comma-separated list of the peers
 * whose X-Forwarded-For is believed: addresses, CIDRs, `loopback` (127.0.0.1/8, ::1), or `gateway`,
 * this machine's default gateway (in a container: where connections from the host come from).
 */
export function trustProxyFromEnv(
  value: string | undefined,
  gateway: () => string | undefined = defaultGateway,
): FastifyServerOptions['trustProxy'] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address: string, hop: number) => hop < hops;
  }
  return value.split(',').map((entry) => {
    const trimmed = entry.trim();
    if (trimmed !== 'gateway') return trimmed;
    const address = gateway();
    if (!address) throw new Error('TRUST_PROXY names the gateway, but this machine has no default route');
    return address;
  });
}

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): FaucetConfig {
  if ((env.NETWORK ?? 'regtest') !== 'regtest')
    throw new Error(`the faucet runs on regtest only; NETWORK is "${env.NETWORK}"`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: portFromEnv(env, 3001),
    chain: chainConfigFromEnv(env),
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    claimSat: positiveIntEnv(env, 'CLAIM_SAT', 100_000),
    cooldownSeconds: positiveIntEnv(env, 'COOLDOWN_SECONDS', 15 * 60),
    mineUrl: env.MINE_URL || undefined,
    mineAddress: env.MINE_ADDRESS || undefined,
    adapterPublicUrl: env.ADAPTER_PUBLIC_URL || undefined,
    trustProxy: trustProxyFromEnv(env.TRUST_PROXY),
    asset: assetFromEnv(env),
  };
}
