import { PGlite } from '@electric-sql/pglite';
import { asDependencyError, type Db, type Queryable, type QueryResult } from './db.js';

/** Embedded Postgres: in memory when dataDir is undefined, else persisted in that folder. */
export async function openPglite(dataDir?: string): Promise<Db> {
  const pg = await PGlite.create(dataDir);
  const run = async <T>(q: Pick<PGlite, 'query'>, text: string, params?: unknown[]): Promise<QueryResult<T>> => {
    try {
      const res = await q.query<T>(text, params as unknown[]);
      // PGlite reports affectedRows 0 for a SELECT; rows counts it, affectedRows counts writes.
      return { rows: res.rows, rowCount: res.rows.length || (res.affectedRows ?? 0) };
    } catch (err) {
      throw asDependencyError(err);
    }
  };
  return {
    kind: 'pglite',
    query: (text, params) => run(pg, text, params),
    transaction: (fn) =>
      pg.transaction((t) => fn({ query: (text, params) => run(t, text, params) } satisfies Queryable)),
    close: () => pg.close(),
  };
}
