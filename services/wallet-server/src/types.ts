import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db } from './db/db.js';
import type { Ledger } from './ledger/index.js';
import type { HealthRegistry } from './health.js';
import type { IdempotencyKeys } from './idempotency/keys.js';
import type { Principal, RouteAuthConfig } from './auth/principal.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    redis: Redis;
    ledger: Ledger;
    idempotencyKeys: IdempotencyKeys;
    health: HealthRegistry;
  }
  interface FastifyRequest {
    /** Set by the auth hook on every non-public route; null on public routes. */
    principal: Principal | null;
  }
  interface FastifyContextConfig extends RouteAuthConfig {}
}
