// The one error model of reglab's domain code: a failure names its kind (what sort of refusal or
// failure it is) and a stable UPPER_SNAKE code, with a message saying what was wrong and what to do.
// Domain code never speaks HTTP; lib/http maps a kind to a status.

export type ErrorKind =
  /** The caller's input is wrong. */
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  /** The request clashes with the current state (already exists, already up, in use). */
  | 'conflict'
  | 'rate_limited'
  /** A part of ours is down or not ready yet; retrying later may work. */
  | 'unavailable'
  /** Something we depend on (a node, a database) failed or answered with an error. */
  | 'upstream';

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    /** Extra machine-readable fields for the caller (e.g. retry_after_seconds, problems). */
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string, details?: Record<string, unknown>) =>
  new DomainError('invalid', code, message, details);
export const unauthorized = (message: string, code = 'UNAUTHORIZED') => new DomainError('unauthorized', code, message);
export const forbidden = (message: string, code = 'FORBIDDEN') => new DomainError('forbidden', code, message);
export const notFound = (message: string, code = 'NOT_FOUND') => new DomainError('not_found', code, message);
export const conflict = (code: string, message: string) => new DomainError('conflict', code, message);
export const rateLimited = (code: string, message: string, retryAfterSeconds: number) =>
  new DomainError('rate_limited', code, message, { retry_after_seconds: retryAfterSeconds });
export const unavailable = (code: string, message: string) => new DomainError('unavailable', code, message);
export const upstreamFailed = (code: string, message: string, cause?: unknown) =>
  new DomainError('upstream', code, message, {}, { cause });

/**
 * The stable code of a failure, where it has one: a DomainError's, or the reason the `lightning`
 * library (under ln-service) gives as the second item of what it rejects with.
 */
export function errorCodeOf(error: unknown): string | undefined {
  if (error instanceof DomainError) return error.code;
  if (Array.isArray(error) && typeof error[1] === 'string') return error[1];
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * A readable message from anything thrown. The `lightning` library (under ln-service) rejects with
 * arrays such as [503, 'UnexpectedPaymentError', { err }] rather than Error objects.
 */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (Array.isArray(error)) {
    const [, code, details] = error as [number, string, { err?: { details?: string; message?: string } } | undefined];
    const detail = details?.err?.details ?? details?.err?.message;
    return detail ? `${code}: ${detail}` : String(code);
  }
  return String(error);
}
