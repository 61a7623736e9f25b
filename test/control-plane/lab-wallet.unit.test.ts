// The lab wallet finds its outputs on btcd's address index again only when the chain's tip or its
// mempool changed, and answers the same balance as a search of its own would.
import { describe, expect, it } from 'vitest';
import type { RpcChainDriver } from '../../lib/chain/rpc-driver.js';
import { LabWallet } from '../../control-plane/src/wallet/lab-wallet.js';

const KEY = '11'.repeat(32);

/** btcd as the lab wallet asks it, with a chain that pays the wallet one coinbase per block. */
function chainOf(address: string) {
  const state = { tip: 'tip-1', mempool: [] as string[], blocks: 1, searches: 0 };
  const coinbase = (height: number) => ({
    txid: height.toString(16).padStart(64, '0'),
    confirmations: state.blocks - height + 1,
    vin: [{ coinbase: '00' }],
    vout: [{ n: 0, value: 50, scriptPubKey: { address } }],
  });
  const chain = {
    kind: 'btcd',
    getBestBlockHash: async () => state.tip,
    getRawMempool: async () => state.mempool,
    call: async (method: string) => {
      if (method !== 'searchrawtransactions') throw new Error(`unexpected ${method}`);
      state.searches += 1;
      return Array.from({ length: state.blocks }, (_, index) => coinbase(index + 1));
    },
  } as unknown as RpcChainDriver;
  return { chain, state };
}

describe('the lab wallet', () => {
  it('searches the address index once per tip and mempool, with the balance of a fresh search', async () => {
    const address = new LabWallet({ kind: 'btcd' } as RpcChainDriver, KEY).address;
    const { chain, state } = chainOf(address);
    const wallet = new LabWallet(chain, KEY);

    state.blocks = 101;
    // coinbases 100 blocks deep are spendable: those of heights 1 and 2
    expect(await wallet.balanceSat()).toEqual({ spendable: 10_000_000_000n, immature: 495_000_000_000n });
    expect(await wallet.balanceSat()).toEqual({ spendable: 10_000_000_000n, immature: 495_000_000_000n });
    expect(state.searches).toBe(1);

    // a new block: found again, one more coinbase mature
    state.blocks = 102;
    state.tip = 'tip-2';
    expect(await wallet.balanceSat()).toEqual({ spendable: 15_000_000_000n, immature: 495_000_000_000n });
    expect(state.searches).toBe(2);

    // a transaction entering the mempool (the address index holds unconfirmed ones too): found again
    state.mempool = ['aa'.repeat(32)];
    await wallet.balanceSat();
    expect(state.searches).toBe(3);
    await wallet.balanceSat();
    expect(state.searches).toBe(3);
  });
});
