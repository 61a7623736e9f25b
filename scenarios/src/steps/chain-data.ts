// Reads of the lab's chain data as wallets make them: the Esplora-shaped chain adapter over HTTP
// and the Electrum server over TCP.
import { parseAddress } from '../../../lib/bitcoin/address.js';
import { electrumCall } from './electrum.js';
import { StepFailure } from './failure.js';
import { call } from './http.js';
import type { AnyStepKind } from './kind.js';
import { object, text } from './schema-parts.js';

const adapterGet: AnyStepKind = {
  name: 'chain_adapter.get',
  summary: 'GET a path of the chain adapter under /api (e.g. /tx/{txid}/status, /address/{a}/utxo, /blocks/tip/height)',
  args: object({ path: { type: 'string', pattern: '^/' } }, ['path']),
  async run(args: { path: string }, context) {
    const base = await context.services.url('chain-adapter');
    return call(`${base}${args.path}`, { signal: context.signal, service: 'chain-adapter' });
  },
};

const electrum: AnyStepKind = {
  name: 'electrum.call',
  summary:
    "one Electrum-protocol call to the lab's Electrum server; with address:, its script hash is the first parameter (blockchain.scripthash.*)",
  args: object({ method: text, params: { type: 'array' }, address: text }, ['method']),
  async run(args: { method: string; params?: unknown[]; address?: string }, context) {
    const params = args.params ?? [];
    if (args.address !== undefined) {
      try {
        params.unshift(parseAddress(args.address, 'regtest').scriptHash);
      } catch (error) {
        throw new StepFailure((error as Error).message, { code: 'INVALID_ADDRESS' });
      }
    }
    return electrumCall(await context.services.electrum(), args.method, params, context.signal);
  },
};

export const chainDataSteps = [adapterGet, electrum];
