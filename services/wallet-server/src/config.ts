import { positiveIntEnv } from '../../../lib/env.js';
import { randomBytes } from 'node:crypto';

export type Network = 'regtest' | 'testnet' | 'signet' | 'bitcoin';

export interface Config {
  host: string;
  port: number;
  /** Unset: embedded PGlite (in memory, or in pgliteDataDir). */
  databaseUrl?: string;
  pgliteDataDir?: string;
  dbPoolMax: number;
  redisUrl: string;
  network: Network;
  /** Compressed pubkeys (lowercase hex) allowed on /admin/*. */
  adminPubkeys: Set<string>;
  tokenSecret: Buffer;
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  nonceTtlSec: number;
  logLevel: string;
}

const NETWORKS: Network[] = ['regtest', 'testnet', 'signet', 'bitcoin'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const network = (env.NETWORK ?? 'regtest') as Network;
  if (!NETWORKS.includes(network))
    throw new Error(`NETWORK must be one of ${NETWORKS.join(', ')}, got "${env.NETWORK}"`);
  const adminPubkeys = new Set(
    (env.ADMIN_PUBKEYS ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const pk of adminPubkeys) {
    if (!/^0[23][0-9a-f]{64}$/.test(pk))
      throw new Error(`ADMIN_PUBKEYS: "${pk}" is not a 33-byte compressed public key in hex`);
  }
  return {
    host: env.HOST ?? '127.0.0.1',
    port: positiveIntEnv(env, 'PORT', 8080),
    databaseUrl: env.DATABASE_URL || undefined,
    pgliteDataDir: env.PGLITE_DATA_DIR || undefined,
    dbPoolMax: positiveIntEnv(env, 'DATABASE_POOL_MAX', 10),
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    network,
    adminPubkeys,
    // Random per process by default: tokens then die with the process, which is fine in a lab.
    tokenSecret: env.TOKEN_SECRET ? Buffer.from(env.TOKEN_SECRET, 'utf8') : randomBytes(32),
    accessTokenTtlSec: positiveIntEnv(env, 'ACCESS_TOKEN_TTL_SEC', 900),
    refreshTokenTtlSec: positiveIntEnv(env, 'REFRESH_TOKEN_TTL_SEC', 30 * 24 * 3600),
    nonceTtlSec: positiveIntEnv(env, 'NONCE_TTL_SEC', 300),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
