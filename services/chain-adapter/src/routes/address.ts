import type { FastifyInstance } from 'fastify';
import { AddressError, parseAddress, type NetworkName } from '../../../../lib/bitcoin/address.js';
import { PREFIX_RESULTS, type AddressDirectory } from '../esplora/address-prefix.js';
import type { ChainData } from '../esplora/chain-data.js';
import {
  addressObjectSchema,
  addressParam,
  hashParam,
  txListSchema,
  txidParam,
  utxoListSchema,
} from '../esplora/schemas.js';
import { invalid } from '../../../../lib/errors.js';

interface Subject {
  /** Electrum's script hash (reversed sha256 of the script). */
  scriptHash: string;
  /** What the address object names the subject by. */
  label: { address: string } | { scripthash: string };
}

/**
 * The same five reads for /api/address/{address} and /api/scripthash/{hash}. Esplora's scripthash
 * is sha256(script) in plain order (as BDK sends it); Electrum's is the same bytes reversed.
 */
export function addressRoutes(
  app: FastifyInstance,
  data: ChainData,
  network: NetworkName,
  directory: AddressDirectory,
) {
  const families = [
    {
      prefix: '/api/address/:address',
      param: 'address',
      schema: addressParam,
      subject: (value: string): Subject => {
        try {
          const parsed = parseAddress(value, network);
          return { scriptHash: parsed.scriptHash, label: { address: parsed.address } };
        } catch (error) {
          if (error instanceof AddressError) throw invalid('INVALID_ADDRESS', error.message);
          throw error;
        }
      },
    },
    {
      prefix: '/api/scripthash/:hash',
      param: 'hash',
      schema: hashParam,
      subject: (value: string): Subject => ({
        scriptHash: Buffer.from(value, 'hex').reverse().toString('hex'),
        label: { scripthash: value.toLowerCase() },
      }),
    },
  ];

  for (const family of families) {
    const tags = [family.param];
    const params = { type: 'object', required: [family.param], properties: { [family.param]: family.schema } };
    const subjectOf = (request: { params: unknown }) =>
      family.subject((request.params as Record<string, string>)[family.param]!);

    app.get(
      family.prefix,
      {
        schema: {
          tags,
          summary: 'Funded/spent totals, confirmed and in the mempool',
          params,
          response: { 200: addressObjectSchema },
        },
      },
      async (request) => {
        const subject = subjectOf(request);
        return { ...subject.label, ...(await data.stats(subject.scriptHash)) };
      },
    );
    app.get(
      `${family.prefix}/utxo`,
      { schema: { tags, summary: 'Unspent outputs', params, response: { 200: utxoListSchema } } },
      (request) => data.utxos(subjectOf(request).scriptHash),
    );
    app.get(
      `${family.prefix}/txs`,
      {
        schema: {
          tags,
          summary:
            'Transactions, newest first: up to 50 in the mempool, then the newest 25 confirmed; with after_txid, the 25 confirmed ones after it (as /txs/chain/{after_txid})',
          params,
          querystring: { type: 'object', properties: { after_txid: txidParam } },
          response: { 200: txListSchema },
        },
      },
      (request) => {
        const after = (request.query as { after_txid?: string }).after_txid;
        const scriptHash = subjectOf(request).scriptHash;
        return after ? data.chainTxs(scriptHash, after.toLowerCase()) : data.txs(scriptHash);
      },
    );
    app.get(
      `${family.prefix}/txs/mempool`,
      { schema: { tags, summary: 'Mempool transactions (up to 50)', params, response: { 200: txListSchema } } },
      (request) => data.mempoolTxs(subjectOf(request).scriptHash),
    );
    app.get(
      `${family.prefix}/txs/chain`,
      { schema: { tags, summary: 'The newest 25 confirmed transactions', params, response: { 200: txListSchema } } },
      (request) => data.chainTxs(subjectOf(request).scriptHash),
    );
    app.get(
      `${family.prefix}/txs/chain/:last_seen_txid`,
      {
        schema: {
          tags,
          summary: 'The next 25 confirmed transactions after last_seen_txid (the last one of the previous page)',
          params: {
            ...params,
            required: [family.param, 'last_seen_txid'],
            properties: { ...params.properties, last_seen_txid: txidParam },
          },
          response: { 200: txListSchema },
        },
      },
      (request) =>
        data.chainTxs(
          subjectOf(request).scriptHash,
          (request.params as { last_seen_txid: string }).last_seen_txid.toLowerCase(),
        ),
    );
  }

  app.get(
    '/api/address-prefix/:prefix',
    {
      schema: {
        tags: ['address'],
        summary: `Up to ${PREFIX_RESULTS} addresses the chain or the mempool paid that start with prefix, sorted`,
        params: {
          type: 'object',
          required: ['prefix'],
          properties: { prefix: { type: 'string', pattern: '^[A-Za-z0-9]{1,90}$' } },
        },
        response: { 200: { type: 'array', items: { type: 'string' } } },
      },
    },
    (request) => directory.search((request.params as { prefix: string }).prefix),
  );
}
