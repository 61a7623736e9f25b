// blockchain.transaction.get on a staged chain: confirmed transactions are fetched from the node once
// and kept while their block stays in the chain; a verbose answer about an unconfirmed one looks at
// the node first.
import { afterEach, describe, expect, it } from 'vitest';
import type { ChainDriver } from '../../lib/chain/types.js';
import { ConfirmedTxCache } from '../../services/indexer/src/confirmed-txs.js';
import type { RunningIndexer } from '../../services/indexer/src/indexer.js';
import { FakeChain, p2wpkhScript, spend } from './fake-chain.js';
import type { LineClient } from './rpc-line-client.js';
import { startStagedIndexer, type StagedIndexer } from './staged-indexer.js';

describe('confirmed transactions', () => {
  it('are dropped least recently used first, and missed when asked for in another block', () => {
    const cache = new ConfirmedTxCache(2);
    cache.set('a', 'block1', 'aa');
    cache.set('b', 'block1', 'bb');
    expect(cache.get('a', 'block1')).toBe('aa');
    cache.set('c', 'block2', 'cc');
    expect([cache.get('a', 'block1'), cache.get('b', 'block1'), cache.get('c', 'block2')]).toEqual([
      'aa',
      undefined,
      'cc',
    ]);
    expect(cache.get('c', 'block3')).toBeUndefined();
  });

  describe('served by the indexer', () => {
    let staged: StagedIndexer | undefined;
    let indexer: RunningIndexer;
    let client: LineClient;

    const start = async (driver: ChainDriver) => {
      staged = await startStagedIndexer(driver);
      ({ indexer, client } = staged);
    };

    afterEach(async () => {
      await staged?.close();
      staged = undefined;
    });

    it('count confirmations from the node as of a verbose question about an unconfirmed transaction', async () => {
      const chain = new FakeChain();
      const funding = chain.mineTo(p2wpkhScript(1)).transactions![0]!;
      await start(chain.asDriver());
      const payment = spend([{ txid: funding.getId(), vout: 0 }], [{ script: p2wpkhScript(2), value: 49n }]);
      await chain.asDriver().sendRawTransaction(payment.toHex());
      const unconfirmed = await client.request('blockchain.transaction.get', [payment.getId(), true]);
      expect(unconfirmed).not.toHaveProperty('confirmations');
      const block = chain.mineTo(p2wpkhScript(3), [payment]);
      expect(await client.request('blockchain.transaction.get', [payment.getId(), true])).toMatchObject({
        blockhash: block.getId(),
        confirmations: 1,
      });
      expect(indexer.height()).toBe(2);
    });

    it('ask the node once, and again after a reorg confirms them in another block', async () => {
      const chain = new FakeChain();
      const funding = chain.mineTo(p2wpkhScript(1)).transactions![0]!;
      const payment = spend([{ txid: funding.getId(), vout: 0 }], [{ script: p2wpkhScript(2), value: 49n }]);
      const first = chain.mineTo(p2wpkhScript(3), [payment]);
      const driver = chain.asDriver();
      let asked = 0;
      const counting = {
        ...driver,
        getRawTransactionHex: (txid: string) => (
          (asked += txid === payment.getId() ? 1 : 0), driver.getRawTransactionHex(txid)
        ),
      };
      await start(counting);
      const verbose = () =>
        client.request('blockchain.transaction.get', [payment.getId(), true]) as Promise<{
          hex: string;
          blockhash: string;
          confirmations: number;
        }>;
      for (let i = 0; i < 3; i++)
        expect(await verbose()).toMatchObject({ hex: payment.toHex(), blockhash: first.getId(), confirmations: 1 });
      expect(asked).toBe(1);

      // a competing branch, one block longer, confirms the payment in another block
      const second = chain.mineTo(p2wpkhScript(4), [payment], 1);
      chain.mineTo(p2wpkhScript(5));
      await indexer.follower.poke();
      expect(await verbose()).toMatchObject({ hex: payment.toHex(), blockhash: second.getId(), confirmations: 2 });
      expect(asked).toBe(2);
    });
  });
});
