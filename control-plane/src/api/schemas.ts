import { errorResponses } from '../../../lib/http/errors.js';
import { MAX_PERIOD_SECONDS, MAX_SAT } from '../spec/bounds.js';

const labName = { type: 'string', pattern: '^[a-z][a-z0-9-]{0,30}$' } as const;
export const nodeName = { type: 'string', minLength: 1, maxLength: 64 } as const;
const anyObject = { type: 'object', additionalProperties: true } as const;
const hex32 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export const labParams = { type: 'object', required: ['name'], properties: { name: labName } } as const;
export const serviceParams = {
  type: 'object',
  required: ['name', 'service'],
  properties: { name: labName, service: nodeName },
} as const;
export const nodeParams = {
  type: 'object',
  required: ['name', 'node'],
  properties: { name: labName, node: nodeName },
} as const;
export const invoiceParams = {
  type: 'object',
  required: ['name', 'node', 'hash'],
  properties: { name: labName, node: nodeName, hash: hex32 },
} as const;

/** A JSON answer of the lab; its fields are described in docs/control-plane.md. */
export const answer = (description: string) => ({ description, ...anyObject });

/** The errors a route on a lab answers: unknown lab (404), lab not ready (409), a node failing (502). */
/** 503: a docker lab's container engine does not answer (CONTAINER_ENGINE_UNAVAILABLE). */
export const labErrors = errorResponses(401, 404, 409, 502, 503);

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
  additionalProperties: false,
  properties: {
    wait: { type: 'boolean', default: false, description: 'answer when the job has finished (up to 120 s)' },
  },
} as const;

/** A client's key for a job request it may send again (RFC draft "The Idempotency-Key HTTP Header Field"). */
export const idempotencyHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      description:
        'sent again with the same request, answers the job the first one queued (for a day after it ends) instead of queuing another: 1 to 64 letters, digits, _ or -',
    },
  },
} as const;

export const mineBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    blocks: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
    address: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'pay the coinbase here instead of to the lab wallet',
    },
  },
} as const;

export const reorgBody = {
  type: 'object',
  additionalProperties: false,
  required: ['blocks'],
  properties: {
    blocks: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'the last N blocks are replaced by N+1 new ones',
    },
  },
} as const;

export const fundBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount_sat'],
  oneOf: [{ required: ['node'] }, { required: ['address'] }],
  properties: {
    node: nodeName,
    address: { type: 'string', minLength: 1, maxLength: 100 },
    amount_sat: { type: 'integer', minimum: 546, maximum: MAX_SAT },
  },
} as const;

export const channelBody = {
  type: 'object',
  additionalProperties: false,
  required: ['from', 'to', 'capacity_sat'],
  properties: {
    from: nodeName,
    to: nodeName,
    capacity_sat: { type: 'integer', minimum: 20_000, maximum: MAX_SAT },
    push_sat: { type: 'integer', minimum: 0, default: 0 },
    private: { type: 'boolean', default: false },
  },
} as const;

export const closeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['node'],
  properties: {
    node: nodeName,
    partner: nodeName,
    channel_id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'the channel as the node names it (lnd: funding txid:vout)',
    },
    force: { type: 'boolean', default: false },
  },
} as const;

export const paymentBody = {
  type: 'object',
  additionalProperties: false,
  required: ['from'],
  oneOf: [{ required: ['to', 'amount_sat'] }, { required: ['invoice'] }],
  properties: {
    from: nodeName,
    to: nodeName,
    amount_sat: { type: 'integer', minimum: 1, maximum: MAX_SAT },
    invoice: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'a BOLT11 invoice to pay (instead of to + amount_sat)',
    },
    keysend: { type: 'boolean', default: false, description: 'pay `to` by keysend, without an invoice' },
  },
} as const;

export const autoMiningBody = {
  type: 'object',
  additionalProperties: false,
  required: ['seconds'],
  properties: {
    seconds: { type: 'integer', minimum: 0, maximum: MAX_PERIOD_SECONDS, description: '0 stops auto-mining' },
  },
} as const;

export const peersBody = {
  type: 'object',
  additionalProperties: false,
  required: ['a', 'b'],
  properties: { a: nodeName, b: nodeName },
} as const;

export const invoiceBody = {
  type: 'object',
  additionalProperties: false,
  required: ['amount_msat'],
  properties: {
    amount_msat: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    memo: { type: 'string', maxLength: 639 },
    expiry_sec: { type: 'integer', minimum: 1, maximum: 31_536_000 },
    hold: {
      type: 'boolean',
      default: false,
      description: 'a hold invoice: the lab makes the preimage and answers it; settle or cancel it later',
    },
  },
} as const;

export const settleBody = {
  type: 'object',
  additionalProperties: false,
  required: ['preimage'],
  properties: { preimage: hex32 },
} as const;

export const logsQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { lines: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 } },
} as const;

/** A username of the wallet server (LUD-16's characters, as the wallet server takes them). */
export const connectInfoQuery = {
  type: 'object',
  additionalProperties: false,
  properties: { user: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' } },
} as const;
