import type { FastifyInstance } from 'fastify';
import { ChainRpcError, type ChainDriver } from '../../../../lib/chain/types.js';
import { headerInfo, medianTimes, toEsploraBlock } from '../esplora/convert.js';
import { blockSchema, blockStatusSchema, hashParam } from '../esplora/schemas.js';
import { notFound } from '../../../../lib/errors.js';
import type { Indexer } from '../indexer.js';

const text = { type: 'string' } as const;
const hashParams = { type: 'object', required: ['hash'], properties: { hash: hashParam } } as const;
/** Esplora's page of blocks. */
const BLOCKS_PAGE = 10;

/**
 * The tip comes from the indexer, so that a wallet that syncs to it finds every transaction up to
 * that height in the address answers; block lookups by height or hash go to the node.
 */
export function blockRoutes(app: FastifyInstance, driver: ChainDriver, indexer: Indexer) {
  const sendText = (reply: { type(t: string): { send(body: string): unknown } }, body: string) => reply.type('text/plain; charset=utf-8').send(body);
  const orNotFound = async <T>(what: string, read: () => Promise<T>) => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ChainRpcError) throw notFound(`${what} is not known to the node: ${error.message}`);
      throw error;
    }
  };

  app.get('/api/blocks/tip/height', { schema: { tags: ['blocks'], summary: 'Height of the indexed tip (text)', response: { 200: text } } }, async (_request, reply) =>
    sendText(reply, String(await indexer.tipHeight())),
  );
  app.get('/api/blocks/tip/hash', { schema: { tags: ['blocks'], summary: 'Hash of the indexed tip (text)', response: { 200: text } } }, async (_request, reply) =>
    sendText(reply, headerInfo(await indexer.blockHeaderHex(await indexer.tipHeight())).hash),
  );
  app.get(
    '/api/block-height/:height',
    {
      schema: {
        tags: ['blocks'],
        summary: 'Hash of the block at a height (text)',
        params: { type: 'object', required: ['height'], properties: { height: { type: 'integer', minimum: 0 } } },
        response: { 200: text },
      },
    },
    async (request, reply) => {
      const { height } = request.params as { height: number };
      return sendText(reply, await orNotFound(`block height ${height}`, () => driver.getBlockHash(height)));
    },
  );
  app.get(
    '/api/block/:hash/header',
    {
      schema: {
        tags: ['blocks'],
        summary: 'The 80-byte block header as hex (text)',
        params: { type: 'object', required: ['hash'], properties: { hash: hashParam } },
        response: { 200: text },
      },
    },
    async (request, reply) => {
      const hash = (request.params as { hash: string }).hash.toLowerCase();
      return sendText(reply, await orNotFound(`block ${hash}`, () => driver.getBlockHeaderHex(hash)));
    },
  );

  /** Timestamps of the blocks at heights `low`..`high` (and the 10 before, for median times), from the indexer's headers. */
  const timestampsFor = async (low: number, high: number) => {
    const start = Math.max(0, low - 10);
    const hex = await indexer.blockHeadersHex(start, high - start + 1);
    const headers = Buffer.from(hex, 'hex');
    const times = new Map<number, number>();
    for (let i = 0; i * 80 < headers.length; i++) times.set(start + i, headers.readUInt32LE(i * 80 + 68));
    if (!times.has(high)) throw notFound(`block height ${high} is not indexed yet`);
    return medianTimes(times, Array.from({ length: high - low + 1 }, (_, i) => low + i));
  };
  const blocksAt = async (hashes: string[]) => {
    const blocks = await Promise.all(hashes.map(async (hash) => ({ hex: await driver.getBlockHex(hash), height: (await driver.getBlockSummary(hash)).height })));
    const heights = blocks.map((block) => block.height);
    const median = await timestampsFor(Math.min(...heights), Math.max(...heights));
    return blocks.map((block) => toEsploraBlock(block.hex, block.height, median.get(block.height)!));
  };
  const blockAt = async (hash: string) => (await blocksAt([hash]))[0]!;
  const hashOf = (request: { params: unknown }) => (request.params as { hash: string }).hash.toLowerCase();

  app.get('/api/block/:hash', { schema: { tags: ['blocks'], summary: 'A block', params: hashParams, response: { 200: blockSchema } } }, (request) =>
    orNotFound(`block ${hashOf(request)}`, () => blockAt(hashOf(request))),
  );
  app.get('/api/block/:hash/raw', { schema: { tags: ['blocks'], summary: 'The serialized block (bytes)', params: hashParams } }, async (request, reply) =>
    reply.type('application/octet-stream').send(Buffer.from(await orNotFound(`block ${hashOf(request)}`, () => driver.getBlockHex(hashOf(request))), 'hex')),
  );
  app.get(
    '/api/block/:hash/status',
    { schema: { tags: ['blocks'], summary: 'Whether the block is in the best chain, and the next one', params: hashParams, response: { 200: blockStatusSchema } } },
    async (request) => {
      const hash = hashOf(request);
      const { height } = await orNotFound(`block ${hash}`, () => driver.getBlockSummary(hash));
      if ((await driver.getBlockHash(height)) !== hash) return { in_best_chain: false };
      const next = await driver.getBlockHash(height + 1).catch((error: unknown) => {
        if (error instanceof ChainRpcError) return undefined;
        throw error;
      });
      return { in_best_chain: true, height, ...(next ? { next_best: next } : {}) };
    },
  );
  const blocksFrom = async (start: number) => {
    const heights = Array.from({ length: Math.min(BLOCKS_PAGE, start + 1) }, (_, i) => start - i);
    return blocksAt(await Promise.all(heights.map((height) => driver.getBlockHash(height))));
  };
  app.get('/api/blocks', { schema: { tags: ['blocks'], summary: 'The 10 newest blocks (from the indexed tip down)', response: { 200: { type: 'array', items: blockSchema } } } }, async () =>
    blocksFrom(await indexer.tipHeight()),
  );
  app.get(
    '/api/blocks/:start_height',
    {
      schema: {
        tags: ['blocks'],
        summary: '10 blocks from start_height down',
        params: { type: 'object', required: ['start_height'], properties: { start_height: { type: 'integer', minimum: 0 } } },
        response: { 200: { type: 'array', items: blockSchema } },
      },
    },
    async (request) => {
      const start = (request.params as { start_height: number }).start_height;
      const tip = await indexer.tipHeight();
      return blocksFrom(Math.min(start, tip));
    },
  );
}
