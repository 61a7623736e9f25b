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

/** Where a JSON body holds -0 (e.g. "body/withdraw/budget_msat"), or null. JSON Schema takes -0 for
 * an integer >= 0, and it would be stored as 0: a sign the client got wrong is refused, not dropped. */
function negativeZeroIn(value: unknown, path: string, depth = 0): string | null {
  if (Object.is(value, -0)) return path;
  if (!value || typeof value !== 'object' || depth > 32) return null;
  for (const [k, v] of Object.entries(value)) {
    const found = negativeZeroIn(v, `${path}/${k}`, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Refuses text Postgres cannot store, and -0, before any route runs (schemas are lib/http's strict ones). */
export function installValidation(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (badTextIn(request.params) || badTextIn(request.query) || badTextIn(request.body)) {
      throw invalid('INVALID_TEXT', 'text must not contain NUL (\\u0000) or unpaired UTF-16 surrogates');
    }
    const negativeZero = negativeZeroIn(request.body, 'body');
    if (negativeZero)
      throw invalid('BAD_REQUEST', `${negativeZero} must not be -0 (a negative zero): send 0 or a positive number`);
  });
}
