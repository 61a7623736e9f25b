// The shape of a scenario file around its actions; each action's arguments have the schema of
// their step kind (steps/).

export const VARIABLE_NAME = '^[A-Za-z_][A-Za-z0-9_]*$';

/** Names the runner fills in itself: run.id, lab, repeat.index / repeat.count. */
export const BUILT_IN_VARIABLES = ['run', 'lab', 'repeat'] as const;

/** Durations are checked by the loader, which says how to write one. */
const duration = { type: ['number', 'string'] } as const;

export const scenarioSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'steps'],
  properties: {
    version: { enum: [1, 2] },
    name: { type: 'string', minLength: 1 },
    description: { type: 'string' },
    vars: { type: 'object', propertyNames: { pattern: VARIABLE_NAME } },
    timeout: duration,
    steps: { type: 'array', minItems: 1, items: { type: 'object' } },
    finally: { type: 'array', minItems: 1, items: { type: 'object' } },
  },
} as const;

/** The keys every step may have besides its one action. */
export const stepEnvelopeSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    save: { type: 'object', propertyNames: { pattern: VARIABLE_NAME }, additionalProperties: { type: 'string' } },
    expect: { type: 'object', minProperties: 1 },
    expect_error: {
      type: ['string', 'object'],
      minLength: 1,
      minProperties: 1,
      additionalProperties: false,
      properties: {
        message: { type: 'string', minLength: 1 },
        code: { type: 'string', minLength: 1 },
        status: { type: 'integer' },
      },
    },
    timeout: duration,
    retry: {
      type: 'object',
      additionalProperties: false,
      minProperties: 1,
      properties: { attempts: { type: 'integer', minimum: 1 }, for: duration, interval: duration },
    },
    repeat: {
      type: 'object',
      additionalProperties: false,
      required: ['count'],
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 10_000 },
        concurrency: { type: 'integer', minimum: 1, maximum: 1_000 },
      },
    },
    parallel: { type: 'array', minItems: 1, items: { type: 'object' } },
  },
} as const;

export const ENVELOPE_KEYS = Object.keys(stepEnvelopeSchema.properties);

/** The one step of scenario files of version 1 that version 2 words differently. */
export const legacyExpectSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    node: { type: 'string', minLength: 1 },
    channel_balance_sat: { $ref: '#/$defs/bound' },
    chain_balance_sat: { $ref: '#/$defs/bound' },
    height: { $ref: '#/$defs/bound' },
  },
  $defs: {
    bound: {
      type: ['integer', 'object'],
      additionalProperties: false,
      minProperties: 1,
      properties: { at_least: { type: 'integer' }, at_most: { type: 'integer' } },
    },
  },
} as const;
