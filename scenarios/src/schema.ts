const bound = {
  oneOf: [
    { type: 'integer' },
    { type: 'object', additionalProperties: false, minProperties: 1, properties: { at_least: { type: 'integer' }, at_most: { type: 'integer' } } },
  ],
};
const name = { type: 'string', minLength: 1 };
const step = (verb: string, body: object) => ({
  type: 'object',
  additionalProperties: false,
  required: [verb],
  properties: { [verb]: body, expect_error: { type: 'string' } },
});

export const scenarioSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'steps'],
  properties: {
    name: { type: 'string', minLength: 1 },
    steps: {
      type: 'array',
      minItems: 1,
      items: {
        oneOf: [
          step('mine', { type: 'object', additionalProperties: false, required: ['blocks'], properties: { blocks: { type: 'integer', minimum: 1 }, address: { type: 'string' } } }),
          step('fund', { type: 'object', additionalProperties: false, required: ['amount_sat'], properties: { node: name, address: name, amount_sat: { type: 'integer' } } }),
          step('channel', { type: 'object', additionalProperties: false, required: ['from', 'to', 'capacity_sat'], properties: { from: name, to: name, capacity_sat: { type: 'integer' }, push_sat: { type: 'integer' } } }),
          step('pay', { type: 'object', additionalProperties: false, required: ['from', 'to', 'amount_sat'], properties: { from: name, to: name, amount_sat: { type: 'integer' } } }),
          step('expect', { type: 'object', additionalProperties: false, minProperties: 1, properties: { node: name, channel_balance_sat: bound, chain_balance_sat: bound, height: bound } }),
        ],
      },
    },
  },
} as const;
