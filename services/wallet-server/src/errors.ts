// The wallet server's refusals are the shared domain errors (lib/errors.ts); the HTTP layer
// (lib/http) maps their kinds to statuses. This file adds what only this server needs.
import { notFound as notFoundError, invalid, type DomainError, upstreamFailed } from '../../../lib/errors.js';
import { DependencyError, sqlState } from './db/db.js';

export { conflict, DomainError, forbidden, invalid, unauthorized } from '../../../lib/errors.js';

/** A resource of this server that does not exist, or that the caller may not see. */
export const notFound = (what: string) => notFoundError(`${what} not found`);

/** The server's own failures, as domain errors: a dependency down is a 502; text Postgres cannot
 * store (a NUL, an unpaired surrogate), wherever it reaches the database, is the caller's input. */
export function mapWalletServerError(err: unknown): DomainError | undefined {
  if (err instanceof DependencyError)
    return upstreamFailed('DEPENDENCY_UNAVAILABLE', `${err.message}; retry when it is back`, err);
  const state = sqlState(err);
  if (state === '22021' || state === '22P05')
    return invalid('INVALID_TEXT', 'text must not contain NUL (\\u0000) or characters outside UTF-8');
  return undefined;
}
