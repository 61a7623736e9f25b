/** An error a route answers with: HTTP status, a stable machine code and a message saying what to do. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra machine-readable fields of the error object (e.g. retry_after_seconds). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (code: string, message: string) => new HttpError(400, code, message);
export const notFound = (message: string) => new HttpError(404, 'NOT_FOUND', message);
export const unavailable = (code: string, message: string) => new HttpError(503, code, message);
export const badGateway = (code: string, message: string) => new HttpError(502, code, message);

export const errorBody = (code: string, message: string, details: Record<string, unknown> = {}) => ({ error: { code, message, ...details } });
/**
 * The error body every reglab HTTP service answers with, `{ "error": { "code", "message", ... } }`,
 * as a response schema (for OpenAPI and serialization). Extra fields of `error` (a retry delay,
 * the problems of a lab.yaml) are kept.
 */
export const errorResponseSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      additionalProperties: true,
    },
  },
} as const;
