import type { FastifyInstance } from 'fastify';
import { ChainRpcError, type ChainDriver } from '../../../../lib/chain/types.js';
import type { ChainData } from '../esplora/chain-data.js';
import { merkleBlockHex } from '../esplora/merkle-block.js';
import {
  binaryResponse,
  merkleProofSchema,
  notFoundResponse,
  outspendsSchema,
  textResponse,
  txSchema,
  txStatusSchema,
  txidParam,
} from '../esplora/schemas.js';
import { invalid, notFound } from '../../../../lib/errors.js';
import { decodeRawTransaction, RawTransactionError } from '../../../../lib/bitcoin/raw-tx.js';

const params = { type: 'object', required: ['txid'], properties: { txid: txidParam } } as const;
const txidOf = (request: { params: unknown }) => (request.params as { txid: string }).txid.toLowerCase();

export function txRoutes(app: FastifyInstance, data: ChainData, driver: ChainDriver) {
  app.get(
    '/api/tx/:txid',
    {
      schema: {
        tags: ['tx'],
        summary: "A transaction, with its inputs' prevouts",
        params,
        response: { ...notFoundResponse, 200: txSchema },
      },
    },
    (request) => data.tx(txidOf(request)),
  );
  app.get(
    '/api/tx/:txid/hex',
    {
      schema: {
        tags: ['tx'],
        summary: 'Raw transaction as hex (text)',
        params,
        response: { ...notFoundResponse, 200: textResponse('the transaction as hex') },
      },
    },
    async (request, reply) => reply.type('text/plain; charset=utf-8').send(await data.txHex(txidOf(request))),
  );
  app.get(
    '/api/tx/:txid/raw',
    {
      schema: {
        tags: ['tx'],
        summary: 'Raw transaction as bytes',
        params,
        response: { ...notFoundResponse, 200: binaryResponse('the serialized transaction') },
      },
    },
    async (request, reply) =>
      reply.type('application/octet-stream').send(Buffer.from(await data.txHex(txidOf(request)), 'hex')),
  );
  app.get(
    '/api/tx/:txid/status',
    {
      schema: {
        tags: ['tx'],
        summary: 'Confirmation status',
        params,
        response: { ...notFoundResponse, 200: txStatusSchema },
      },
    },
    (request) => data.txStatus(txidOf(request)),
  );
  app.get(
    '/api/tx/:txid/outspends',
    {
      schema: {
        tags: ['tx'],
        summary: 'For each output: spent or not, and by what',
        params,
        response: { ...notFoundResponse, 200: outspendsSchema },
      },
    },
    (request) => data.outspends(txidOf(request)),
  );

  app.get(
    '/api/tx/:txid/outspend/:vout',
    {
      schema: {
        tags: ['tx'],
        summary: 'Whether one output is spent, and by what',
        params: {
          type: 'object',
          required: ['txid', 'vout'],
          properties: { txid: txidParam, vout: { type: 'integer', minimum: 0 } },
        },
        response: { ...notFoundResponse, 200: outspendsSchema.items },
      },
    },
    async (request) => {
      const { vout } = request.params as { vout: number };
      const outspend = (await data.outspends(txidOf(request)))[vout];
      if (!outspend) throw notFound(`transaction ${txidOf(request)} has no output ${vout}`);
      return outspend;
    },
  );
  app.get(
    '/api/tx/:txid/merkle-proof',
    {
      schema: {
        tags: ['tx'],
        summary: "Merkle proof of a confirmed transaction (Electrum's get_merkle format)",
        params,
        response: { ...notFoundResponse, 200: merkleProofSchema },
      },
    },
    (request) => data.merkleProof(txidOf(request)),
  );
  app.get(
    '/api/tx/:txid/merkleblock-proof',
    {
      schema: {
        tags: ['tx'],
        summary: "BIP37 merkle block proving a confirmed transaction, as hex (text), like bitcoind's gettxoutproof",
        params,
        response: { ...notFoundResponse, 200: textResponse('the merkle block as hex') },
      },
    },
    async (request, reply) => {
      const txid = txidOf(request);
      const status = await data.txStatus(txid);
      if (!status.confirmed)
        throw notFound(`transaction ${txid} is not confirmed yet, so it has no merkle block proof`);
      const [header, block] = await Promise.all([
        driver.getBlockHeaderHex(status.block_hash!),
        driver.getBlockSummary(status.block_hash!),
      ]);
      return reply.type('text/plain; charset=utf-8').send(merkleBlockHex(header, block.txids, txid));
    },
  );

  // Esplora clients post the hex as text, some without any Content-Type: take any body as text here.
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4 * 1024 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    scope.post(
      '/api/tx',
      {
        schema: {
          tags: ['tx'],
          summary: 'Broadcast a raw transaction (hex as the text body); answers the txid as text',
          consumes: ['text/plain'],
          body: { type: 'string', description: 'raw transaction hex' },
          response: { 200: textResponse('the txid') },
        },
      },
      async (request, reply) => {
        const hex = String(request.body ?? '').trim();
        try {
          decodeRawTransaction(hex);
        } catch (error) {
          if (error instanceof RawTransactionError)
            throw invalid(
              'INVALID_TX_HEX',
              `the body must be one raw transaction as hex text; this one ${error.message}`,
            );
          throw error;
        }
        try {
          return reply.type('text/plain; charset=utf-8').send(await driver.sendRawTransaction(hex));
        } catch (error) {
          if (error instanceof ChainRpcError)
            throw invalid('TX_REJECTED', `the node rejected the transaction: ${error.message}`);
          throw error;
        }
      },
    );
  });
}
