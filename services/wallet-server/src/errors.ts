import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { DependencyError, sqlState } from './db/db.js';

/** An error a route answers with: HTTP status, a stable machine code and a message saying what to do. */
export class ApiError extends Error {
  constructor(readonly statusCode: number, readonly code: string, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (code: string, message: string) => new ApiError(400, code, message);
export const unauthorized = (message: string, code = 'UNAUTHORIZED') => new ApiError(401, code, message);
export const forbidden = (message: string, code = 'FORBIDDEN') => new ApiError(403, code, message);
export const notFound = (what: string) => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (code: string, message: string) => new ApiError(409, code, message);

export interface ErrorBody {
  error: { code: string; message: string };
}

const body = (code: string, message: string): ErrorBody => ({ error: { code, message } });

const CLIENT_ERROR_CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/** Fastify's `frameworkErrors` option: errors of the router, before any route or hook runs (a URL
 * that does not decode, a path parameter over maxParamLength), in the same error body. */
export function frameworkErrors(err: FastifyError, _request: unknown, reply: FastifyReply): void {
  const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 400;
  reply.status(status).send(body(CLIENT_ERROR_CODES[status] ?? 'BAD_REQUEST', err.message));
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | Error, request, reply) => {
    if (err instanceof ApiError) return reply.status(err.statusCode).send(body(err.code, err.message));
    if (err instanceof DependencyError) {
      request.log.error({ err }, 'dependency failure');
      return reply.status(502).send(body('DEPENDENCY_UNAVAILABLE', `${err.message}; retry when it is back`));
    }
    // Text Postgres cannot store (a NUL character in a string, a path or a query value) is the
    // caller's input, wherever it reaches the database.
    const state = sqlState(err);
    if (state === '22021' || state === '22P05') {
      return reply.status(400).send(body('INVALID_TEXT', 'text must not contain NUL (\\u0000) or characters outside UTF-8'));
    }
    const fe = err as FastifyError;
    if (fe.validation) return reply.status(400).send(body('BAD_REQUEST', fe.message));
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      // Fastify's own client errors (bad JSON, wrong content type, body too large).
      return reply.status(fe.statusCode).send(body(CLIENT_ERROR_CODES[fe.statusCode] ?? 'BAD_REQUEST', fe.message));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(body('INTERNAL', 'internal error; see the server log'));
  });
  app.setNotFoundHandler((request, reply) =>
    reply.status(404).send(body('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)));
}
