import { describeError, upstreamFailed, type DomainError } from '../../../lib/errors.js';
import { ChainRpcError } from '../../../lib/chain/types.js';
import { engineRefusal } from '../runtimes/docker/refusal.js';

/**
 * A part's own refusal or failure, as a 502 that says which part and what it answered: the chain
 * node (btcd's RPC errors), a Lightning node (ln-service rejects with arrays), the container engine
 * (its HTTP error, as dockerode gives it).
 */
export function mapPartError(error: unknown): DomainError | undefined {
  if (error instanceof ChainRpcError)
    return upstreamFailed('CHAIN_ERROR', `the chain node answered ${error.method}: ${error.message}`, error);
  if (Array.isArray(error))
    return upstreamFailed('NODE_ERROR', `the node refused or failed: ${describeError(error)}`, error);
  const refused = engineRefusal(error);
  if (refused) return upstreamFailed('CONTAINER_ENGINE_ERROR', `the container engine refused: ${refused}`, error);
  return undefined;
}
