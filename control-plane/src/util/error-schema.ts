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
