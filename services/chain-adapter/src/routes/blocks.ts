import type { FastifyInstance } from 'fastify';
import { ChainRpcError, type ChainDriver } from '../../../../control-plane/src/drivers/chain/types.js';
import { headerInfo } from '../esplora/convert.js';
import { hashParam } from '../esplora/schemas.js';
import { notFound } from '../http/errors.js';
import type { Indexer } from '../indexer.js';

const text = { type: 'string' } as const;

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
}
