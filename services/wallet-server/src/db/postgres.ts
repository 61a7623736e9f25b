import { createHash } from 'node:crypto';
import pg from 'pg';
import { asDependencyError, type Db, type Queryable, type QueryResult } from './db.js';

/** Distinct statement texts given a name; any past it (none today) run unnamed, so a text built
 * from data could never fill the connections with prepared statements. */
const NAMED_STATEMENTS_MAX = 500;
const statementNames = new Map<string, string>();

/**
 * A statement with parameters is prepared once per connection under a name made from its text:
 * Postgres then parses and plans it once, not at every call.
 */
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < NAMED_STATEMENTS_MAX) {
    name = `s_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

export function openPostgres(url: string, poolMax = 10): Db {
  const pool = new pg.Pool({ connectionString: url, max: poolMax, connectionTimeoutMillis: 5_000 });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);

  const run = async <T>(client: pg.Pool | pg.PoolClient, text: string, params?: unknown[]): Promise<QueryResult<T>> => {
    try {
      const res = await client.query(
        params === undefined ? text : { name: statementName(text), text, values: params as unknown[] },
      );
      return { rows: res.rows as T[], rowCount: res.rowCount ?? 0 };
    } catch (err) {
      throw asDependencyError(err);
    }
  };

  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw asDependencyError(err);
      }
      const tx: Queryable = { query: (text, params) => run(client, text, params) };
      let broken = false;
      try {
        await tx.query('BEGIN');
        const result = await fn(tx);
        await tx.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
