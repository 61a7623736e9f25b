import type { FastifyInstance } from 'fastify';
import { invalid } from './errors.js';

// NUL and lone UTF-16 surrogates: Postgres stores neither in text or jsonb, so such input is refused
// up front (400) instead of failing deep in a query.
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badTextIn(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return BAD_TEXT.test(value);
  if (!value || typeof value !== 'object' || depth > 32) return false;
  for (const [k, v] of Object.entries(value)) if (BAD_TEXT.test(k) || badTextIn(v, depth + 1)) return true;
  return false;
}

/** Refuses text Postgres cannot store before any route runs (schemas are lib/http's strict ones). */
export function installValidation(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (badTextIn(request.params) || badTextIn(request.query) || badTextIn(request.body)) {
      throw invalid('INVALID_TEXT', 'text must not contain NUL (\\u0000) or unpaired UTF-16 surrogates');
    }
  });
}
