// lab.yaml's schema is checked here rather than at each control plane's start (spec/parse.ts).
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { labSchema } from '../../control-plane/src/spec/schema.js';

describe("lab.yaml's schema", () => {
  it('is a valid JSON Schema, every keyword known to the validator', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    expect(ajv.validateSchema(labSchema), ajv.errorsText(ajv.errors)).toBe(true);
    expect(() => ajv.compile(labSchema)).not.toThrow();
  });
});
