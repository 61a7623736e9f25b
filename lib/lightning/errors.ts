// How a Lightning client says a node did not do what was asked, whatever the implementation: a
// DomainError (lib/errors.ts) whose kind says whose problem it is.
import { DomainError, type ErrorKind } from '../errors.js';

/**
 * The node refused the request (kind `invalid`: for what it asked, e.g. a bad invoice or amount;
 * `not_found` / `conflict`: for the state it names, e.g. an unknown or already settled invoice), or
 * failed or could not be reached (`upstream`, `unavailable`).
 */
export class LightningError extends DomainError {
  constructor(kind: ErrorKind, code: string, message: string, options?: { cause?: unknown }) {
    super(kind, code, message, {}, options);
    this.name = 'LightningError';
  }
}

/**
 * The request certainly never reached the node (no connection could be made, or the node turned it
 * away unread because it is not ready): a payment handed over this way was not taken.
 */
export class LightningUnreachable extends LightningError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('upstream', 'NODE_ERROR', message, options);
    this.name = 'LightningUnreachable';
  }
}

/**
 * The node lost its connection to the channel's partner before the open began (the partner went
 * before the two had finished starting their connection): nothing was funded, and a new
 * connection may well open it.
 */
export const peerLost = (message: string, cause?: unknown) =>
  new LightningError('unavailable', 'PEER_DISCONNECTED', message, { cause });

export const isPeerLost = (error: unknown): boolean =>
  error instanceof LightningError && error.code === 'PEER_DISCONNECTED';

/** The node refused the caller's input. */
export const nodeRefused = (message: string, code = 'NODE_REJECTED') => new LightningError('invalid', code, message);

/** The node failed, or its answer could not be had. */
export const nodeFailed = (message: string, cause?: unknown) =>
  new LightningError('upstream', 'NODE_ERROR', message, { cause });

/** An invoice for an RGB asset asked of a node that holds no assets. */
export const assetsNeedRgbNode = (name: string) =>
  nodeRefused(
    `${name} holds no RGB assets: an invoice for an asset needs an RGB Lightning Node`,
    'ASSETS_NEED_RGB_NODE',
  );

// Errors of a connection that was never made (refused, no such host, no route, connect time-out):
// nothing of the request was sent.
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether an HTTP call (fetch) failed before its connection was made, so the server got nothing. */
export function connectionNeverMade(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_FAILURES.has(code)) return true;
  }
  return false;
}

/** A fetch to a node's HTTP API that got no answer: unreachable when no connection was made. */
export function noAnswer(message: string, error: unknown): LightningError {
  return connectionNeverMade(error) ? new LightningUnreachable(message, { cause: error }) : nodeFailed(message, error);
}
