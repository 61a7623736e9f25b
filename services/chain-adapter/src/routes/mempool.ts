import type { FastifyInstance } from 'fastify';
import type { MempoolView } from '../esplora/mempool.js';
import { notFoundResponse, txidListSchema, txidParam } from '../esplora/schemas.js';

const integer = { type: 'integer' } as const;
const number = { type: 'number' } as const;
const briefTx = {
  type: 'object',
  required: ['txid', 'fee', 'weight'],
  properties: { txid: { type: 'string' }, fee: integer, weight: integer },
} as const;

const mempoolSchema = {
  type: 'object',
  required: ['count', 'vsize', 'total_fee', 'fee_histogram'],
  properties: {
    count: integer,
    vsize: integer,
    total_fee: integer,
    fee_histogram: {
      type: 'array',
      description: '[fee rate (sat/vB), vsize] pairs, highest rate first',
      items: { type: 'array', items: number, minItems: 2, maxItems: 2 },
    },
  },
} as const;
const recentSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['txid', 'fee', 'vsize', 'value'],
    properties: { txid: { type: 'string' }, fee: integer, vsize: integer, value: integer },
  },
} as const;
const projectedBlocksSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['blockSize', 'blockVSize', 'nTx', 'totalFees', 'medianFee', 'feeRange'],
    properties: {
      blockSize: integer,
      blockVSize: integer,
      nTx: integer,
      totalFees: integer,
      medianFee: number,
      feeRange: { type: 'array', items: number },
    },
  },
} as const;
const cpfpSchema = {
  type: 'object',
  required: ['ancestors', 'descendants', 'bestDescendant', 'effectiveFeePerVsize', 'adjustedVsize'],
  properties: {
    ancestors: { type: 'array', items: briefTx },
    descendants: { type: 'array', items: briefTx },
    bestDescendant: { anyOf: [briefTx, { type: 'null' }] },
    effectiveFeePerVsize: number,
    adjustedVsize: integer,
  },
} as const;

/** Esplora's mempool routes and mempool.space's mempool-derived fee routes. */
export function mempoolRoutes(app: FastifyInstance, mempool: MempoolView) {
  app.get(
    '/api/mempool',
    {
      schema: {
        tags: ['mempool'],
        summary: 'Mempool backlog: count, vsize, total fee and fee histogram',
        response: { 200: mempoolSchema },
      },
    },
    () => mempool.summary(),
  );
  app.get(
    '/api/mempool/txids',
    {
      schema: {
        tags: ['mempool'],
        summary: 'The txids of every mempool transaction',
        response: { 200: txidListSchema },
      },
    },
    () => mempool.txids(),
  );
  app.get(
    '/api/mempool/recent',
    {
      schema: {
        tags: ['mempool'],
        summary: 'The last 10 transactions to enter the mempool (as the adapter saw them), newest first',
        response: { 200: recentSchema },
      },
    },
    () => mempool.recent(),
  );
  app.get(
    '/api/v1/fees/mempool-blocks',
    {
      schema: {
        tags: ['fees'],
        summary: 'The mempool by fee rate, cut into the next blocks (1,000,000 vB each; the 8th takes the rest)',
        response: { 200: projectedBlocksSchema },
      },
    },
    () => mempool.projectedBlocks(),
  );
  app.get(
    '/api/v1/cpfp/:txid',
    {
      schema: {
        tags: ['fees'],
        summary:
          "A transaction's unconfirmed ancestors and descendants and its package fee rate (a confirmed one has none)",
        params: { type: 'object', required: ['txid'], properties: { txid: txidParam } },
        response: { ...notFoundResponse, 200: cpfpSchema },
      },
    },
    (request) => mempool.cpfp((request.params as { txid: string }).txid.toLowerCase()),
  );
}
