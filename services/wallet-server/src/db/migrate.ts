import type { Db } from './db.js';
import { migrations } from './migrations.js';

// Any constant works; it only has to be the same for every wallet-server process.
const MIGRATION_LOCK = 0x7265676c; // "regl"

/** Applies pending migrations in version order, each in its own transaction together with its row
 * in schema_migrations; an advisory lock keeps two starting servers from racing. */
export async function migrate(db: Db): Promise<number[]> {
  await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`create table if not exists schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`);
  });
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rowCount } = await tx.query('select 1 from schema_migrations where version = $1', [m.version]);
      if (rowCount > 0) return false;
      for (const statement of m.statements) await tx.query(statement);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
