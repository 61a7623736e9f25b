// lnd's failures as LightningErrors. ln-service rejects with arrays [status, 'Code', {err}] rather
// than Errors; lnd's own words are in err.details, its gRPC status in err.code.
import { LightningError, LightningUnreachable, nodeFailed, nodeRefused } from '../errors.js';

/** ln-service's code and lnd's own text of a failure. */
export function lndErrorText(error: unknown): string {
  if (Array.isArray(error)) {
    const details = (error[2] as { err?: { details?: string } } | undefined)?.err?.details;
    return [error[1], details].filter(Boolean).join(': ');
  }
  return error instanceof Error ? error.message : String(error);
}

/** ln-service's status of a failure (404: lnd has no such invoice or payment). */
export const lndErrorStatus = (error: unknown): number | undefined =>
  Array.isArray(error) && typeof error[0] === 'number' ? error[0] : undefined;

// gRPC statuses of a node that cannot be reached or does not work (CANCELLED, DEADLINE_EXCEEDED,
// PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, UNAUTHENTICATED),
// and lnd's own words for not being ready. Any other answer of lnd is its verdict on the request.
const NODE_FAILURE_GRPC_CODES = new Set([1, 4, 7, 8, 12, 13, 14, 16]);
const NODE_NOT_READY =
  /wallet locked|in the process of starting|not yet ready|still syncing|shutting down|server is not active/i;

// lnd never saw the call: grpc-js found no connection to place it on, or lnd turned it away unread
// while it cannot work yet. ("shutting down" is left out: a payment lnd took may end that way, and
// lnd resumes it when it starts again.)
const NEVER_REACHED_LND =
  /No connection established|Name resolution failed|wallet locked|in the process of starting|not yet ready|server is not active/i;

/**
 * ln-service's codes of an open that failed because the partner's connection went before the open
 * began (lnd: "peer … is not online"; "peer … disconnected" while it waited for the connection to
 * finish starting, or "peer disconnected" while the funding was being agreed, before anything was
 * signed; "unable to send funding request message: peer exiting"): lnd has cancelled the
 * reservation and freed its outputs.
 */
const PEER_LOST_CODES = new Set(['PeerIsNotOnline', 'RemotePeerDisconnected', 'RemotePeerExited']);

/** Whether an open failed for the loss of its partner's connection, nothing funded (see PEER_LOST_CODES). */
export const openLostPeer = (error: unknown): boolean => Array.isArray(error) && PEER_LOST_CODES.has(error[1]);

/** Whether lnd certainly never got the request. */
export const neverReachedLnd = (error: unknown): boolean => NEVER_REACHED_LND.test(lndErrorText(error));

/** ln-service's own checks, made before anything is sent, answer 4xx. */
export const refusedByClient = (error: unknown): boolean => Array.isArray(error) && error[0] >= 400 && error[0] < 500;

/** Whether lnd (or ln-service, checking the arguments for it) refused the request itself. */
export function isRefusal(error: unknown): boolean {
  if (!Array.isArray(error)) return false;
  if (refusedByClient(error)) return true;
  const grpc = (error[2] as { err?: { code?: number; details?: string } } | undefined)?.err;
  return (
    typeof grpc?.code === 'number' &&
    !NODE_FAILURE_GRPC_CODES.has(grpc.code) &&
    !NODE_NOT_READY.test(grpc.details ?? '')
  );
}

/** A failure of lnd's: never reached, or failed. */
export function lndFailure(message: string, error: unknown): LightningError {
  return neverReachedLnd(error) ? new LightningUnreachable(message, { cause: error }) : nodeFailed(message, error);
}

/**
 * Runs a call to lnd. `refusable`: the call carries the caller's input, and lnd's refusal of it is a
 * refusal (400) with lnd's reason; otherwise every failure is lnd's.
 */
export async function lndCall<T>(name: string, what: string, call: () => Promise<T>, refusable = false): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof LightningError) throw error;
    const text = lndErrorText(error);
    if (refusable && isRefusal(error)) throw nodeRefused(`${name} refused ${what}: ${text}`);
    throw lndFailure(`${name} could not take ${what}: ${text}`, error);
  }
}

/** What lnd's failed payments say, in words. */
export interface FailedPayment {
  is_insufficient_balance?: boolean;
  is_invalid_payment?: boolean;
  is_pathfinding_timeout?: boolean;
  is_route_not_found?: boolean;
}

export function failureReason(failed: FailedPayment | undefined): string {
  if (failed?.is_insufficient_balance) return 'the node has too little outbound liquidity';
  if (failed?.is_invalid_payment)
    return 'the destination rejected the payment (unknown, expired or already paid invoice)';
  if (failed?.is_pathfinding_timeout) return 'no route found before the pathfinding timeout';
  if (failed?.is_route_not_found) return 'no route to the destination within the fee limit';
  return 'the payment failed';
}

// lnd refuses these before sending anything: this request never left the node.
export const REFUSED_BEFORE_SENDING =
  /already paid|in transition|already exists|invoice expired|self-payments not allowed/i;
