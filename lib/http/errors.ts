// How every reglab HTTP service answers errors: `{ "error": { "code", "message", ...details } }`,
// with UPPER_SNAKE codes, for domain errors and for the framework's own refusals alike.
import { STATUS_CODES } from 'node:http';
import { DomainError, type ErrorKind } from '../errors.js';

export const STATUS_OF_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  upstream: 502,
};

export interface ErrorBody {
  error: { code: string; message: string; [detail: string]: unknown };
}

export const errorBody = (code: string, message: string, details: Record<string, unknown> = {}): ErrorBody => ({
  error: { code, message, ...details },
});

/** 'Payload Too Large' -> PAYLOAD_TOO_LARGE: the code of a status nothing more specific names. */
export function codeOfStatus(status: number): string {
  return (STATUS_CODES[status] ?? 'Error')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

/** Fastify's own error codes, as the codes reglab answers with. */
const FRAMEWORK_CODES: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'EMPTY_JSON_BODY',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_CONTENT_LENGTH',
  FST_ERR_VALIDATION: 'BAD_REQUEST',
};

export interface HttpAnswer {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

/**
 * The answer for anything a route or the framework threw: a DomainError by its kind, a framework
 * client error (bad JSON, 413, 415, validation, a path parameter too long) by its status with a reglab code, anything
 * else a 500 (logged by the caller).
 */
export function httpAnswerFor(error: unknown): HttpAnswer | undefined {
  if (error instanceof DomainError) {
    const headers: Record<string, string> = {};
    const retryAfter = error.details.retry_after_seconds;
    if (typeof retryAfter === 'number') headers['retry-after'] = String(Math.ceil(retryAfter));
    return { status: STATUS_OF_KIND[error.kind], body: errorBody(error.code, error.message, error.details), headers };
  }
  const fastify = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (fastify.validation)
    return { status: 400, body: errorBody('BAD_REQUEST', fastify.message ?? 'invalid request'), headers: {} };
  if (error instanceof SyntaxError)
    return {
      status: 400,
      body: errorBody('INVALID_JSON', `the body is not valid JSON: ${error.message}`),
      headers: {},
    };
  // Fastify answers 414 (URI Too Long) for one path parameter over its length limit: the URI is not
  // what is too long, the parameter is, and no valid one is that long
  if (fastify.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      status: 400,
      body: errorBody('PARAM_TOO_LONG', 'a path parameter is over 100 characters, longer than any this API takes'),
      headers: {},
    };
  }
  const status = fastify.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code = (fastify.code && FRAMEWORK_CODES[fastify.code]) ?? codeOfStatus(status);
    return { status, body: errorBody(code, fastify.message ?? STATUS_CODES[status] ?? 'client error'), headers: {} };
  }
  return undefined;
}

/**
 * The error body as a response schema (for OpenAPI and serialization). Extra fields of `error`
 * (a retry delay, the problems of a lab.yaml) are kept.
 */
export const errorResponseSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' }, message: { type: 'string' } },
      additionalProperties: true,
    },
  },
} as const;

/** The error responses a route declares, for OpenAPI: errorResponses(400, 404). */
export function errorResponses(...statuses: number[]): Record<number, typeof errorResponseSchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorResponseSchema]));
}
