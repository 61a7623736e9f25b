const labName = { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' } as const;
const nodeName = { type: 'string', minLength: 1, maxLength: 64 } as const;

export const labParams = { type: 'object', required: ['name'], properties: { name: labName } } as const;

export const createLabBody = {
  type: 'object',
  additionalProperties: false,
  required: ['yaml'],
  properties: {
    yaml: { type: 'string', minLength: 1, description: 'the text of lab.yaml' },
    file: { type: 'string', description: 'the file name to use in error messages' },
  },
} as const;

export const waitQuery = {
  type: 'object',
  properties: { wait: { type: 'boolean', default: false, description: 'answer when the job has finished (up to 120 s)' } },
} as const;

export const mineBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    blocks: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
    address: { type: 'string', minLength: 1, description: 'pay the coinbase here instead of to the lab wallet' },
  },
} as const;

export const fundBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount_sat'],
  oneOf: [{ required: ['node'] }, { required: ['address'] }],
  properties: {
    node: nodeName,
    address: { type: 'string', minLength: 1 },
    amount_sat: { type: 'integer', minimum: 546, maximum: 2_100_000_000_000_000 },
  },
} as const;

export const channelBody = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'capacity_sat'],
  properties: {
    from: nodeName,
    to: nodeName,
    capacity_sat: { type: 'integer', minimum: 20_000 },
    push_sat: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

export const paymentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'amount_sat'],
  properties: { from: nodeName, to: nodeName, amount_sat: { type: 'integer', minimum: 1 } },
} as const;

export const autoMiningBody = {
  type: 'object',
  additionalProperties: false,
  required: ['seconds'],
  properties: { seconds: { type: 'integer', minimum: 0, maximum: 86_400, description: '0 stops auto-mining' } },
} as const;
