import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { badRequest } from './errors.js';

// Bodies are validated strictly (a "5" is not an amount of 5); path, query and headers arrive as
// strings, so they get type coercion. Unknown body fields are dropped, not rejected.
function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv.default({ coerceTypes, useDefaults: true, removeAdditional: true, allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

// NUL and lone UTF-16 surrogates: Postgres stores neither in text or jsonb, so such input is refused
// up front (400) instead of failing deep in a query.
const BAD_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badTextIn(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return BAD_TEXT.test(value);
  if (!value || typeof value !== 'object' || depth > 32) return false;
  for (const [k, v] of Object.entries(value)) if (BAD_TEXT.test(k) || badTextIn(v, depth + 1)) return true;
  return false;
}

export function installValidation(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
  app.addHook('preValidation', async (request) => {
    if (badTextIn(request.params) || badTextIn(request.query) || badTextIn(request.body)) {
      throw badRequest('INVALID_TEXT', 'text must not contain NUL (\\u0000) or unpaired UTF-16 surrogates');
    }
  });
}
