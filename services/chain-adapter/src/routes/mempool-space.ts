import type { FastifyInstance } from 'fastify';
import { blockExtras, type ChainBlocks } from '../esplora/chain-blocks.js';
import { difficultyAdjustment, hashrate, HASHRATE_INTERVALS } from '../esplora/mining.js';
import type { Indexer } from '../indexer.js';
import { blockSchema, hashParam, notFoundResponse } from '../esplora/schemas.js';

const number = { type: 'number' } as const;
const integer = { type: 'integer' } as const;
/** mempool.space's page of blocks in its v1 routes. */
const V1_BLOCKS_PAGE = 15;

const v1BlockSchema = {
  ...blockSchema,
  required: [...blockSchema.required, 'extras'],
  properties: {
    ...blockSchema.properties,
    extras: {
      type: 'object',
      required: ['reward', 'totalFees', 'avgFee', 'avgFeeRate'],
      properties: { reward: integer, totalFees: integer, avgFee: integer, avgFeeRate: integer },
    },
  },
} as const;
const adjustmentSchema = {
  type: 'object',
  required: [
    'progressPercent',
    'difficultyChange',
    'estimatedRetargetDate',
    'remainingBlocks',
    'remainingTime',
    'previousRetarget',
    'nextRetargetHeight',
    'timeAvg',
    'timeOffset',
    'expectedBlocks',
  ],
  properties: Object.fromEntries(
    [
      'progressPercent',
      'difficultyChange',
      'estimatedRetargetDate',
      'remainingBlocks',
      'remainingTime',
      'previousRetarget',
      'nextRetargetHeight',
      'timeAvg',
      'timeOffset',
      'expectedBlocks',
    ].map((name) => [name, number]),
  ),
} as const;
const hashrateSchema = {
  type: 'object',
  required: ['hashrates', 'difficulty', 'currentHashrate', 'currentDifficulty'],
  properties: {
    hashrates: {
      type: 'array',
      items: {
        type: 'object',
        required: ['timestamp', 'avgHashrate'],
        properties: { timestamp: integer, avgHashrate: number },
      },
    },
    difficulty: {
      type: 'array',
      items: {
        type: 'object',
        required: ['time', 'height', 'difficulty', 'adjustment'],
        properties: { time: integer, height: integer, difficulty: number, adjustment: number },
      },
    },
    currentHashrate: number,
    currentDifficulty: number,
  },
} as const;

/** mempool.space's `v1` routes that its client (mempool.js) calls for blocks and mining. */
export function mempoolSpaceRoutes(app: FastifyInstance, blocks: ChainBlocks, indexer: Indexer) {
  const withExtras = ({ block, hex }: Awaited<ReturnType<ChainBlocks['byHash']>>) => ({
    ...block,
    extras: blockExtras(hex, block.height),
  });
  const page = async (start: number) => (await blocks.pageFrom(start, V1_BLOCKS_PAGE)).map(withExtras);

  app.get(
    '/api/v1/block/:hash',
    {
      schema: {
        tags: ['blocks'],
        summary: "A block with mempool.space's extras (reward, fees)",
        params: { type: 'object', required: ['hash'], properties: { hash: hashParam } },
        response: { ...notFoundResponse, 200: v1BlockSchema },
      },
    },
    async (request) => withExtras(await blocks.byHash((request.params as { hash: string }).hash.toLowerCase())),
  );
  app.get(
    '/api/v1/blocks',
    {
      schema: {
        tags: ['blocks'],
        summary: `The ${V1_BLOCKS_PAGE} newest blocks with extras`,
        response: { 200: { type: 'array', items: v1BlockSchema } },
      },
    },
    async () => page(await blocks.tipHeight()),
  );
  app.get(
    '/api/v1/blocks/:start_height',
    {
      schema: {
        tags: ['blocks'],
        summary: `${V1_BLOCKS_PAGE} blocks with extras from start_height down (none above the indexed tip)`,
        params: {
          type: 'object',
          required: ['start_height'],
          properties: { start_height: { type: 'integer', minimum: 0 } },
        },
        response: { 200: { type: 'array', items: v1BlockSchema } },
      },
    },
    (request) => page((request.params as { start_height: number }).start_height),
  );
  app.get(
    '/api/v1/difficulty-adjustment',
    {
      schema: {
        tags: ['mining'],
        summary:
          'Progress of the difficulty epoch (2016 blocks; regtest never retargets, so difficultyChange is 0); times in ms',
        response: { 200: adjustmentSchema },
      },
    },
    () => difficultyAdjustment(indexer, Date.now()),
  );
  app.get(
    '/api/v1/mining/hashrate/:interval',
    {
      schema: {
        tags: ['mining'],
        summary: 'Daily hashrate estimates and difficulty changes over an interval (1m, 3m, 6m, 1y, 2y, 3y, all)',
        params: {
          type: 'object',
          required: ['interval'],
          properties: { interval: { type: 'string', enum: Object.keys(HASHRATE_INTERVALS) } },
        },
        response: { 200: hashrateSchema },
      },
    },
    (request) =>
      hashrate(
        indexer,
        HASHRATE_INTERVALS[(request.params as { interval: string }).interval]!,
        Math.floor(Date.now() / 1000),
      ),
  );
}
