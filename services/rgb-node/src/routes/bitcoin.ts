// The node's bitcoin: /address, /btcbalance, /createutxos (the UTXOs RGB allocations live on),
// /sendbtc, /listunspents.
import type { FastifyInstance } from 'fastify';
import { toRlnUnspent } from '../rln/convert.js';
import { rlnSchema } from '../rln/http.js';
import { checkPositive } from '../rln/request-checks.js';
import {
  btcBalanceResponse,
  createUtxosBody,
  emptyResponse,
  listUnspentsResponse,
  sendBtcBody,
  skipSyncBody,
  txidResponse,
} from '../rln/schemas.js';
import type { RgbNode } from '../node/rgb-node.js';

/** RLN's defaults for /createutxos (rgb-lib's own are smaller). */
const DEFAULT_UTXO_NUM = 4;
const DEFAULT_UTXO_SIZE_SAT = 32_000;

export function bitcoinRoutes(api: FastifyInstance, node: RgbNode): void {
  api.post(
    '/address',
    {
      schema: rlnSchema({
        tag: 'bitcoin',
        method: 'POST',
        summary: 'A new address of the vanilla (uncolored) wallet',
        ok: { type: 'object', required: ['address'], properties: { address: { type: 'string' } } },
      }),
    },
    async () => ({ address: await node.unlocked().wallet.address() }),
  );

  api.post<{ Body: { skip_sync: boolean } }>(
    '/btcbalance',
    {
      schema: rlnSchema({
        tag: 'bitcoin',
        method: 'POST',
        summary: 'Vanilla and colored bitcoin balances in sat',
        body: skipSyncBody,
        ok: btcBalanceResponse,
        statuses: [503],
      }),
    },
    async (request) => node.unlocked().wallet.btcBalance({ skipSync: request.body.skip_sync }),
  );

  api.post<{
    Body: { up_to: boolean; num?: number | null; size?: number | null; fee_rate: number; skip_sync: boolean };
  }>(
    '/createutxos',
    {
      schema: rlnSchema({
        tag: 'bitcoin',
        method: 'POST',
        summary:
          'Create UTXOs for RGB allocations (num, default 4, of size sat, default 32000; up_to: only as many as missing)',
        body: createUtxosBody,
        ok: emptyResponse,
        statuses: [503],
      }),
    },
    async (request) => {
      const { up_to, num, size, fee_rate, skip_sync } = request.body;
      const { wallet } = node.unlocked();
      if (num !== null && num !== undefined) checkPositive(num, 'num');
      await wallet.createUtxos({
        upTo: up_to,
        num: num ?? DEFAULT_UTXO_NUM,
        sizeSat: size ?? DEFAULT_UTXO_SIZE_SAT,
        feeRateSatPerVb: fee_rate,
        skipSync: skip_sync,
      });
      return {};
    },
  );

  api.post<{ Body: { amount: number; address: string; fee_rate: number; skip_sync: boolean } }>(
    '/sendbtc',
    {
      schema: rlnSchema({
        tag: 'bitcoin',
        method: 'POST',
        summary: 'Send sat from the vanilla wallet to an address',
        body: sendBtcBody,
        ok: txidResponse,
        statuses: [503],
      }),
    },
    async (request) => {
      const { amount, address, fee_rate, skip_sync } = request.body;
      const { wallet } = node.unlocked();
      checkPositive(amount, 'amount');
      return { txid: await wallet.sendBtc(address, amount, { feeRateSatPerVb: fee_rate, skipSync: skip_sync }) };
    },
  );

  api.post<{ Body: { skip_sync: boolean } }>(
    '/listunspents',
    {
      schema: rlnSchema({
        tag: 'bitcoin',
        method: 'POST',
        summary: "The wallet's UTXOs with their RGB allocations",
        body: skipSyncBody,
        ok: listUnspentsResponse,
        statuses: [503],
      }),
    },
    async (request) => ({
      unspents: (await node.unlocked().wallet.listUnspents({ skipSync: request.body.skip_sync })).map(toRlnUnspent),
    }),
  );
}
