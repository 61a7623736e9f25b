// Set-up shared by the Lightning tests of the wallet server: an app with the Lightning plugin on a
// given node client, on its own (or a given) database.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe } from 'vitest';
import type { LightningClient } from '../../lib/lightning/client.js';
import { lightningClientFromEnv } from '../../lib/lightning/implementations.js';
import { waitFor } from '../../lib/wait.js';
import { buildApp } from '../../services/wallet-server/src/app.js';
import { loadConfig, type Config } from '../../services/wallet-server/src/config.js';
import { lightningPlugin, loadLightningConfig } from '../../services/wallet-server/src/lightning/index.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { enrollAndSignIn, startInfra, type Infra, type TestUser } from './support.js';

/** The kinds of node the Lightning tests run the server on. */
const SERVER_NODE_KINDS = ['lnd', 'ldk'] as const;
export type ServerNodeKind = (typeof SERVER_NODE_KINDS)[number];

/** Runs `suite` once per node kind, each on its own lab, all on the file's one Postgres and Redis (`infra()`). */
export function describeOnEachNodeKind(suite: (kind: ServerNodeKind, infra: () => Infra) => void): void {
  let infra: Infra;
  beforeAll(async () => {
    infra = await startInfra();
  });
  afterAll(async () => {
    await infra?.stop();
  });
  describe.each(SERVER_NODE_KINDS)('the wallet server on an %s node', (kind) => suite(kind, () => infra));
}

/**
 * A lab where alice, the server's node, is of `kind`, and bob, outside the server, is an lnd node with a channel from
 * alice.
 */
export function startServerLab(
  kind: ServerNodeKind,
  channel: { capacity_sat: number; push_sat: number },
): Promise<Regtest> {
  return startRegtest({
    lnd: kind === 'lnd' ? ['alice', 'bob'] : ['bob'],
    ldk: kind === 'ldk' ? ['alice'] : [],
    // ldk nodes follow the chain through the indexer
    indexer: kind === 'ldk',
    channels: [{ from: 'alice', to: 'bob', ...channel }],
  });
}

/** What the lab gives the wallet server to reach alice: NODE_KIND and the node's address and credentials. */
export const serverNodeEnv = (regtest: Regtest): Record<string, string> =>
  regtest.session.clientEnvOf('alice', regtest.session.host);

/** The node client the server makes from that environment. */
export const serverNode = (env: Record<string, string>): Promise<LightningClient> => lightningClientFromEnv(env);

export interface ServerOnLnd {
  infra: Infra;
  regtest: Regtest;
  /** What the lab gives the server to reach alice. */
  nodeEnv: Record<string, string>;
  /** The server's environment beyond that (one token secret, so a restarted server knows the tokens). */
  env: Record<string, string>;
  /** A test that restarts the server replaces it here. */
  server: LightningApp;
  user: TestUser;
}

/** Postgres, Redis, a lab where alice (lnd) has a channel to bob, a wallet server on alice and a
 * signed-in user, around the enclosing describe block (the fields are set once its beforeAll ran). */
export function serverOnLnd(channel = { capacity_sat: 5_000_000, push_sat: 1_000_000 }): ServerOnLnd {
  const fixture = { env: { TOKEN_SECRET: randomBytes(32).toString('hex') } } as Partial<ServerOnLnd> as ServerOnLnd;
  beforeAll(async () => {
    fixture.infra = await startInfra();
    fixture.regtest = await startServerLab('lnd', channel);
    fixture.nodeEnv = serverNodeEnv(fixture.regtest);
    fixture.server = await lightningApp(fixture.infra, await serverNode(fixture.nodeEnv), { env: fixture.env });
    fixture.user = await enrollAndSignIn(fixture.server.app);
  });
  afterAll(async () => {
    await fixture.server?.app.close();
    await fixture.regtest?.stop();
    await fixture.infra?.stop();
  });
  return fixture;
}

let dbCounter = 0;

export async function newDatabase(infra: Infra): Promise<string> {
  return infra.postgres.createDatabase(`wsln_${process.pid}_${++dbCounter}`);
}

export interface LightningApp {
  app: FastifyInstance;
  config: Config;
  databaseUrl: string;
}

/** An app with the Lightning plugin on `node`; pass databaseUrl to restart on the same data. */
export async function lightningApp(
  infra: Infra,
  node: LightningClient,
  opts: { databaseUrl?: string; env?: Record<string, string> } = {},
): Promise<LightningApp> {
  const databaseUrl = opts.databaseUrl ?? (await newDatabase(infra));
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: infra.redis.url, PUBLIC_URL: 'http://wallet.test', ...opts.env };
  const config = loadConfig(env);
  const app = await buildApp(config, { logger: false, plugins: [lightningPlugin(loadLightningConfig(env), node)] });
  return { app, config, databaseUrl };
}

/** Polls until fn returns a truthy value; an error of fn ends the wait at once. */
export function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  return waitFor(async () => (await fn()) || undefined, { timeoutMs, what, stopOn: () => true });
}
