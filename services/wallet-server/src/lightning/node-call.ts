import { LightningError } from '../../../../lib/lightning/errors.js';
import { DependencyError } from '../db/db.js';
import { invalid } from '../errors.js';

/** Runs a node call for a route: a node refusing the caller's input is a 400 with the node's reason,
 * a node that fails or cannot be reached a 502 naming it (`implementation`). */
export async function nodeCall<T>(implementation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof LightningError)) throw err;
    throw err.kind === 'invalid' ? invalid(err.code, err.message) : new DependencyError(implementation, err);
  }
}
