import { DependencyError } from '../db/db.js';
import { invalid } from '../errors.js';
import { NodeError, NodeRejected, type NodeKind } from './gateway.js';

/** Runs a node call for a route: an unreachable or failing node is a 502, a node refusal of the
 * caller's input a 400 with the node's reason. */
export async function nodeCall<T>(kind: NodeKind, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NodeRejected) throw invalid(err.code, err.message);
    if (err instanceof NodeError) throw new DependencyError(kind, err);
    throw err;
  }
}
