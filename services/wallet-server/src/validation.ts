import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

// Bodies are validated strictly (a "5" is not an amount of 5); path, query and headers arrive as
// strings, so they get type coercion. Unknown body fields are dropped, not rejected.
function makeAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv.default({ coerceTypes, useDefaults: true, removeAdditional: true, allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv;
}

export function installValidation(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema));
}
