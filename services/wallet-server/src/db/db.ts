// One small database interface over node-postgres (a pool) and PGlite (embedded), so every module
// is written once against `Db` and runs on either.

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  /** Runs fn inside BEGIN/COMMIT on one connection; any throw rolls back and is rethrown. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  readonly kind: 'postgres' | 'pglite';
}

/** The open transaction tx as a Db, so code written against Db (e.g. the ledger) joins it:
 * its own transaction() runs inside tx instead of beginning another. */
export function joinTransaction(tx: Queryable, kind: Db['kind']): Db {
  return {
    kind,
    query: (text, params) => tx.query(text, params),
    transaction: (fn) => fn(tx),
    close: async () => undefined,
  };
}

/** A database failure that is not the caller's fault (connection lost, server down): maps to 502. */
export class DependencyError extends Error {
  constructor(
    readonly dependency: 'postgres' | 'redis' | string,
    cause: unknown,
  ) {
    super(`${dependency} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DependencyError';
  }
}

// SQLSTATE classes that mean "the database is not there / not usable right now", not "your SQL
// or data was wrong": connection exceptions, insufficient resources, operator intervention.
const UNAVAILABLE_SQLSTATE = /^(08|53|57)/;

/** Errors with an SQLSTATE outside the classes above are data errors the caller may handle
 * (unique violation, check violation...); everything else is a dependency failure. */
export function asDependencyError(err: unknown): unknown {
  if (err instanceof DependencyError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const isSqlState = typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
  if (isSqlState && !UNAVAILABLE_SQLSTATE.test(code)) return err;
  return new DependencyError('postgres', err);
}

/** Postgres SQLSTATE of an error, if it has one (e.g. '23505' unique violation). */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
