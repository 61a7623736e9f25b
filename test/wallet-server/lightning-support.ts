// Set-up shared by the Lightning tests of the wallet server: an app with the Lightning plugin on a
// given node gateway, on its own (or a given) database.
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../services/wallet-server/src/app.js';
import { loadConfig, type Config } from '../../services/wallet-server/src/config.js';
import { lightningPlugin, loadLightningConfig, type NodeGateway } from '../../services/wallet-server/src/lightning/index.js';
import type { Infra } from './support.js';

let dbCounter = 0;

export async function newDatabase(infra: Infra): Promise<string> {
  return infra.postgres.createDatabase(`wsln_${process.pid}_${++dbCounter}`);
}

export interface LightningApp {
  app: FastifyInstance;
  config: Config;
  databaseUrl: string;
}

/** An app with the Lightning plugin on `gateway`; pass databaseUrl to restart on the same data. */
export async function lightningApp(infra: Infra, gateway: NodeGateway, opts: { databaseUrl?: string; env?: Record<string, string> } = {}): Promise<LightningApp> {
  const databaseUrl = opts.databaseUrl ?? (await newDatabase(infra));
  const env = { DATABASE_URL: databaseUrl, REDIS_URL: infra.redis.url, PUBLIC_URL: 'http://wallet.test', ...opts.env };
  const config = loadConfig(env);
  const app = await buildApp(config, { logger: false, plugins: [lightningPlugin(loadLightningConfig(env), gateway)] });
  return { app, config, databaseUrl };
}

/** Polls until fn returns a truthy value. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
