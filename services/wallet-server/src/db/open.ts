import type { Db } from './db.js';
import { migrate } from './migrate.js';
import { openPostgres } from './postgres.js';

export interface DbConfig {
  databaseUrl?: string;
  pgliteDataDir?: string;
  poolMax?: number;
}

/**
 * Opens Postgres at databaseUrl, or an embedded PGlite without one, and applies migrations. PGlite
 * is imported only then: on Postgres (as in a lab) it would cost the process memory for nothing.
 */
export async function openDatabase(config: DbConfig): Promise<Db> {
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, config.poolMax)
    : await (await import('./pglite.js')).openPglite(config.pgliteDataDir);
  try {
    await migrate(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return db;
}
