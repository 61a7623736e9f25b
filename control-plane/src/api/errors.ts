import { upstreamFailed, type DomainError } from '../../../lib/errors.js';
import { ChainRpcError } from '../../../lib/chain/types.js';
import { engineRefusal } from '../runtimes/docker/refusal.js';

/**
 * A part's own refusal or failure, as a 502 that says which part and what it answered: the chain
 * node (btcd's RPC errors), the container engine (its HTTP error, as dockerode gives it). Lightning
 * nodes answer through lib/lightning, whose errors are domain errors already.
 */
export function mapPartError(error: unknown): DomainError | undefined {
  if (error instanceof ChainRpcError)
    return upstreamFailed('CHAIN_ERROR', `the chain node answered ${error.method}: ${error.message}`, error);
  const refused = engineRefusal(error);
  if (refused) return upstreamFailed('CONTAINER_ENGINE_ERROR', `the container engine refused: ${refused}`, error);
  return undefined;
}
