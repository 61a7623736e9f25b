import type { FastifyInstance } from 'fastify';
import type { ChainDriver } from '../../../../lib/chain/types.js';
import { invalid, notFound } from '../../../../lib/errors.js';
import type { ChainBlocks } from '../esplora/chain-blocks.js';
import type { ChainData } from '../esplora/chain-data.js';
import {
  binaryResponse,
  blockSchema,
  blockStatusSchema,
  hashParam,
  notFoundResponse,
  textResponse,
  txListSchema,
  txidListSchema,
} from '../esplora/schemas.js';

const hashParams = { type: 'object', required: ['hash'], properties: { hash: hashParam } } as const;
const heightSchema = { type: 'integer', minimum: 0 } as const;
/** Esplora's pages: 10 blocks, 25 transactions of a block. */
const BLOCKS_PAGE = 10;
const BLOCK_TXS_PAGE = 25;

const sendText = (reply: { type(t: string): { send(body: string): unknown } }, body: string) =>
  reply.type('text/plain; charset=utf-8').send(body);
const hashOf = (request: { params: unknown }) => (request.params as { hash: string }).hash.toLowerCase();

/**
 * Esplora's block routes. The tip comes from the indexer, so that a wallet that syncs to it finds
 * every transaction up to that height in the address answers; block lookups go to the node.
 */
export function blockRoutes(app: FastifyInstance, driver: ChainDriver, blocks: ChainBlocks, data: ChainData) {
  app.get(
    '/api/blocks/tip/height',
    {
      schema: {
        tags: ['blocks'],
        summary: 'Height of the indexed tip (text)',
        response: { 200: textResponse('a height') },
      },
    },
    async (_request, reply) => sendText(reply, String(await blocks.tipHeight())),
  );
  app.get(
    '/api/blocks/tip/hash',
    {
      schema: {
        tags: ['blocks'],
        summary: 'Hash of the indexed tip (text)',
        response: { 200: textResponse('a block hash') },
      },
    },
    async (_request, reply) => sendText(reply, await blocks.tipHash()),
  );
  app.get(
    '/api/block-height/:height',
    {
      schema: {
        tags: ['blocks'],
        summary: 'Hash of the block at a height (text)',
        params: { type: 'object', required: ['height'], properties: { height: heightSchema } },
        response: { ...notFoundResponse, 200: textResponse('a block hash') },
      },
    },
    async (request, reply) => {
      const { height } = request.params as { height: number };
      return sendText(reply, await blocks.known(`block height ${height}`, () => driver.getBlockHash(height)));
    },
  );
  app.get(
    '/api/block/:hash/header',
    {
      schema: {
        tags: ['blocks'],
        summary: 'The 80-byte block header as hex (text)',
        params: hashParams,
        response: { ...notFoundResponse, 200: textResponse('the header as hex') },
      },
    },
    async (request, reply) =>
      sendText(reply, await blocks.known(`block ${hashOf(request)}`, () => driver.getBlockHeaderHex(hashOf(request)))),
  );
  app.get(
    '/api/block/:hash',
    {
      schema: {
        tags: ['blocks'],
        summary: 'A block',
        params: hashParams,
        response: { ...notFoundResponse, 200: blockSchema },
      },
    },
    async (request) => (await blocks.byHash(hashOf(request))).block,
  );
  app.get(
    '/api/block/:hash/raw',
    {
      schema: {
        tags: ['blocks'],
        summary: 'The serialized block (bytes)',
        params: hashParams,
        response: { ...notFoundResponse, 200: binaryResponse('the block') },
      },
    },
    async (request, reply) =>
      reply
        .type('application/octet-stream')
        .send(
          Buffer.from(await blocks.known(`block ${hashOf(request)}`, () => driver.getBlockHex(hashOf(request))), 'hex'),
        ),
  );
  app.get(
    '/api/block/:hash/status',
    {
      schema: {
        tags: ['blocks'],
        summary: 'Whether the block is in the best chain, and the next one (a block a reorg replaced: not in it)',
        params: hashParams,
        response: { ...notFoundResponse, 200: blockStatusSchema },
      },
    },
    (request) => blocks.status(hashOf(request)),
  );
  app.get(
    '/api/block/:hash/txids',
    {
      schema: {
        tags: ['blocks'],
        summary: "The block's txids, in block order",
        params: hashParams,
        response: { ...notFoundResponse, 200: txidListSchema },
      },
    },
    async (request) => (await blocks.summary(hashOf(request))).txids,
  );
  app.get(
    '/api/block/:hash/txid/:index',
    {
      schema: {
        tags: ['blocks'],
        summary: 'The txid at a position of the block (text)',
        params: { type: 'object', required: ['hash', 'index'], properties: { hash: hashParam, index: heightSchema } },
        response: { ...notFoundResponse, 200: textResponse('a txid') },
      },
    },
    async (request, reply) => {
      const { index } = request.params as { index: number };
      const txid = (await blocks.summary(hashOf(request))).txids[index];
      if (!txid) throw notFound(`block ${hashOf(request)} has no transaction at position ${index}`);
      return sendText(reply, txid);
    },
  );
  const blockTxs = async (hash: string, start: number) => {
    if (start % BLOCK_TXS_PAGE !== 0)
      throw invalid(
        'INVALID_START_INDEX',
        `start_index must be a multiple of ${BLOCK_TXS_PAGE} (pages of ${BLOCK_TXS_PAGE} transactions)`,
      );
    const { txids, height } = await blocks.summary(hash);
    if (start > 0 && start >= txids.length)
      throw notFound(`block ${hash} has ${txids.length} transactions; start_index ${start} is past them`);
    return data.txsOfBlock(txids.slice(start, start + BLOCK_TXS_PAGE), height);
  };
  app.get(
    '/api/block/:hash/txs',
    {
      schema: {
        tags: ['blocks'],
        summary: `The block's first ${BLOCK_TXS_PAGE} transactions`,
        params: hashParams,
        response: { ...notFoundResponse, 200: txListSchema },
      },
    },
    (request) => blockTxs(hashOf(request), 0),
  );
  app.get(
    '/api/block/:hash/txs/:start_index',
    {
      schema: {
        tags: ['blocks'],
        summary: `${BLOCK_TXS_PAGE} transactions of the block from start_index (a multiple of ${BLOCK_TXS_PAGE})`,
        params: {
          type: 'object',
          required: ['hash', 'start_index'],
          properties: { hash: hashParam, start_index: heightSchema },
        },
        response: { ...notFoundResponse, 200: txListSchema },
      },
    },
    (request) => blockTxs(hashOf(request), (request.params as { start_index: number }).start_index),
  );

  const page = async (start: number) => (await blocks.pageFrom(start, BLOCKS_PAGE)).map(({ block }) => block);
  app.get(
    '/api/blocks',
    {
      schema: {
        tags: ['blocks'],
        summary: `The ${BLOCKS_PAGE} newest blocks (from the indexed tip down)`,
        response: { 200: { type: 'array', items: blockSchema } },
      },
    },
    async () => page(await blocks.tipHeight()),
  );
  app.get(
    '/api/blocks/:start_height',
    {
      schema: {
        tags: ['blocks'],
        summary: `${BLOCKS_PAGE} blocks from start_height down (none above the indexed tip)`,
        params: { type: 'object', required: ['start_height'], properties: { start_height: heightSchema } },
        response: { 200: { type: 'array', items: blockSchema } },
      },
    },
    (request) => page((request.params as { start_height: number }).start_height),
  );
}
