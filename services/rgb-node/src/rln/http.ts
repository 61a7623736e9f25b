// How the RLN API answers over HTTP: its routes' schemas with RLN's error body for every status a
// route can answer, and the error handler that turns whatever a route threw into that body.
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../../../lib/errors.js';
import { httpAnswerFor } from '../../../../lib/http/errors.js';
import { RgbLibError } from '../../../../lib/rgb/rgb-lib-error.js';
import { fromRgbLib, rlnAnswer, rlnErrorSchema, type RlnErrorBody } from './errors.js';

export interface RlnRouteOptions {
  tag: 'node' | 'bitcoin' | 'assets' | 'transfers' | 'lightning';
  summary: string;
  /** The 200 body. */
  ok: object;
  /** POST routes take a JSON body (validated when a schema is given) and may answer 400, 413, 415. */
  method: 'GET' | 'POST';
  body?: object;
  /** Statuses beyond 403 (the node's state) and 500: 401 for a password, 503 for the indexer or proxy. */
  statuses?: number[];
}

export function rlnSchema(options: RlnRouteOptions) {
  const statuses = new Set([
    403,
    500,
    ...(options.statuses ?? []),
    ...(options.method === 'POST' ? [400, 413, 415] : []),
  ]);
  return {
    tags: [options.tag],
    summary: options.summary,
    ...(options.body ? { body: options.body } : {}),
    response: { 200: options.ok, ...Object.fromEntries([...statuses].map((status) => [status, rlnErrorSchema])) },
  };
}

function answerFor(error: unknown, log: FastifyBaseLogger): { status: number; body: RlnErrorBody } {
  const domain = error instanceof RgbLibError ? fromRgbLib(error) : error;
  if (domain instanceof DomainError) return rlnAnswer(domain);
  const framework = httpAnswerFor(error);
  // RLN gives every refusal of a request body (bad JSON, a missing field, a wrong type) this name
  if (framework)
    return {
      status: framework.status,
      body: { error: framework.body.error.message, code: framework.status, name: 'JsonExtractorRejection' },
    };
  log.error({ err: error }, 'request failed');
  return {
    status: 500,
    body: {
      error: `Unexpected error: ${error instanceof Error ? error.message : String(error)}`,
      code: 500,
      name: 'Unexpected',
    },
  };
}

export function rlnErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { status, body } = answerFor(error, request.log);
  return reply.status(status).send(body);
}
