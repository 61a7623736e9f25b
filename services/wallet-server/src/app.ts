import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Redis } from 'ioredis';
import './types.js';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import { openDatabase } from './db/open.js';
import { openRedis, redisReady } from '../../../lib/redis.js';
import { Ledger } from './ledger/index.js';
import { IdempotencyKeys } from './idempotency/keys.js';
import { HealthRegistry, healthRoutes } from './health.js';
import { mapWalletServerError } from './errors.js';
import { installMetrics } from '../../../lib/http/metrics.js';
import { createService } from '../../../lib/http/service.js';
import { walletServerMetrics } from './metrics.js';
import { installValidation } from './validation.js';
import { installAuthHook } from './auth/hook.js';
import { SessionStore } from './auth/sessions.js';
import { authRoutes } from './auth/routes.js';
import { walletRoutes } from './wallets/routes.js';
import { paymentRoutes } from './payments/routes.js';
import { adminRoutes } from './admin/routes.js';

export interface AppOptions {
  /** Use this database instead of opening one from config (it is then not closed with the app). */
  db?: Db;
  /** Use this Redis client instead of opening one from config (likewise not closed). */
  redis?: Redis;
  /** Feature plugins registered after the core routes, e.g. the Lightning routes. */
  plugins?: FastifyPluginAsync[];
  logger?: boolean | Record<string, unknown>;
}

export async function buildApp(config: Config, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = await createService({
    title: 'reglab wallet server',
    description: 'Wallet server interface 0.1.0 (regtest).',
    version: '0.1.0',
    logger: options.logger ?? { level: config.logLevel },
    openapi: { components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } } },
    mapError: mapWalletServerError,
  });
  // a scraper holds no bearer token: the metrics are aggregates, no wallet's own
  const metrics = installMetrics(app, { routeConfig: { auth: 'public' } });
  const db = options.db ?? (await openDatabase(config));
  walletServerMetrics(metrics, db);
  const redis = options.redis ?? openRedis(config.redisUrl);
  if (!(await redisReady(redis)))
    app.log.warn(`Redis at ${config.redisUrl} is not reachable yet; sign-in answers 502 until it is`);
  app.addHook('onClose', async () => {
    if (!options.redis) redis.disconnect();
    if (!options.db) await db.close();
  });

  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('redis', redis);
  const ledger = new Ledger(db);
  app.decorate('ledger', ledger);
  app.decorate('idempotencyKeys', new IdempotencyKeys(db, ledger));
  app.decorate('health', new HealthRegistry());

  installValidation(app);
  const sessions = new SessionStore(redis, { nonceSec: config.nonceTtlSec, refreshSec: config.refreshTokenTtlSec });
  installAuthHook(app, sessions);

  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== 'public' && route.schema)
      route.schema = { ...route.schema, security: [{ bearerAuth: [] }] };
  });

  try {
    await app.register(healthRoutes);
    await app.register(authRoutes, { sessions });
    await app.register(walletRoutes);
    await app.register(paymentRoutes);
    await app.register(adminRoutes);
    for (const plugin of options.plugins ?? []) await app.register(plugin);
  } catch (err) {
    await app.close().catch(() => undefined); // releases the database and Redis opened above
    throw err;
  }
  return app;
}
