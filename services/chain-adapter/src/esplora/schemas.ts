// JSON schemas of Esplora's shapes, for validation-free fast serialization and the OpenAPI document.
import { errorResponses } from '../../../../lib/http/errors.js';

const integer = { type: 'integer' } as const;
const string = { type: 'string' } as const;

export const txStatusSchema = {
  type: 'object',
  required: ['confirmed'],
  properties: {
    confirmed: { type: 'boolean' },
    block_height: integer,
    block_hash: string,
    block_time: { ...integer, description: 'Unix seconds' },
  },
} as const;

const outputSchema = {
  type: 'object',
  required: ['scriptpubkey', 'scriptpubkey_asm', 'scriptpubkey_type', 'value'],
  properties: {
    scriptpubkey: string,
    scriptpubkey_asm: string,
    scriptpubkey_type: string,
    scriptpubkey_address: string,
    value: { ...integer, description: 'satoshis' },
  },
} as const;

export const txSchema = {
  type: 'object',
  required: ['txid', 'version', 'locktime', 'size', 'weight', 'fee', 'vin', 'vout', 'status'],
  properties: {
    txid: string,
    version: integer,
    locktime: integer,
    size: integer,
    weight: integer,
    fee: { ...integer, description: 'satoshis' },
    vin: {
      type: 'array',
      items: {
        type: 'object',
        required: ['txid', 'vout', 'prevout', 'scriptsig', 'scriptsig_asm', 'is_coinbase', 'sequence'],
        properties: {
          txid: string,
          vout: integer,
          prevout: { ...outputSchema, type: ['object', 'null'] },
          scriptsig: string,
          scriptsig_asm: string,
          witness: { type: 'array', items: string },
          is_coinbase: { type: 'boolean' },
          sequence: integer,
        },
      },
    },
    vout: { type: 'array', items: outputSchema },
    status: txStatusSchema,
  },
} as const;

export const txListSchema = { type: 'array', items: txSchema } as const;

export const utxoListSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['txid', 'vout', 'value', 'status'],
    properties: { txid: string, vout: integer, value: integer, status: txStatusSchema },
  },
} as const;

/** An object whose fields are all required integers. */
const integers = <const Names extends readonly string[]>(names: Names) =>
  ({
    type: 'object',
    required: names,
    properties: Object.fromEntries(names.map((name) => [name, integer])) as Record<Names[number], typeof integer>,
  }) as const;

const statsSchema = integers(['funded_txo_count', 'funded_txo_sum', 'spent_txo_count', 'spent_txo_sum', 'tx_count']);

export const addressObjectSchema = {
  type: 'object',
  required: ['chain_stats', 'mempool_stats'],
  properties: { address: string, scripthash: string, chain_stats: statsSchema, mempool_stats: statsSchema },
} as const;

export const outspendsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['spent'],
    properties: { spent: { type: 'boolean' }, txid: string, vin: integer, status: txStatusSchema },
  },
} as const;

export const feeRecommendationSchema = {
  ...integers(['fastestFee', 'halfHourFee', 'hourFee', 'economyFee', 'minimumFee']),
  description:
    "sat/vB (integers), by the lab's fee policy (lab.yaml `fees`): its fixed rate, or the node's estimates with 20 sat/vB (0.0002 BTC/kvB) where the node cannot estimate. Targets: fastest 1 block, half hour 3, hour 6, economy 144; minimum is the relay minimum.",
} as const;

export const blockSchema = {
  type: 'object',
  required: [
    'id',
    'height',
    'version',
    'timestamp',
    'tx_count',
    'size',
    'weight',
    'merkle_root',
    'previousblockhash',
    'mediantime',
    'nonce',
    'bits',
    'difficulty',
  ],
  properties: {
    id: string,
    height: integer,
    version: integer,
    timestamp: { ...integer, description: 'Unix seconds' },
    tx_count: integer,
    size: integer,
    weight: integer,
    merkle_root: string,
    previousblockhash: { type: ['string', 'null'] },
    mediantime: { ...integer, description: 'BIP-113 median time past, Unix seconds' },
    nonce: integer,
    bits: integer,
    difficulty: { type: 'number' },
  },
} as const;

export const blockStatusSchema = {
  type: 'object',
  required: ['in_best_chain'],
  properties: { in_best_chain: { type: 'boolean' }, height: integer, next_best: string },
} as const;

export const merkleProofSchema = {
  type: 'object',
  required: ['block_height', 'merkle', 'pos'],
  properties: { block_height: integer, merkle: { type: 'array', items: string }, pos: integer },
} as const;

export const txidParam = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{64}$',
  description: 'transaction id, 64 hex characters',
} as const;
export const hashParam = {
  type: 'string',
  pattern: '^[0-9a-fA-F]{64}$',
  description: '32-byte hash as 64 hex characters',
} as const;
export const addressParam = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** A text/plain answer, declared so in OpenAPI (errors stay JSON). */
export const textResponse = (description: string) =>
  ({ description, content: { 'text/plain': { schema: { type: 'string' } } } }) as const;

/** A binary answer (application/octet-stream), declared so in OpenAPI. */
export const binaryResponse = (description: string) =>
  ({ description, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }) as const;

export const txidListSchema = { type: 'array', items: { type: 'string' } } as const;

/** A transaction, block or output the node and the indexer do not know. */
export const notFoundResponse = errorResponses(404);
