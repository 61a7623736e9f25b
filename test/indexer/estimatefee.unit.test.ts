// blockchain.estimatefee answers the lab's fee policy, and an error (not a made-up rate) while the
// node cannot be reached.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeePolicy } from '../../lib/chain/fee-policy.js';
import type { ChainDriver } from '../../lib/chain/types.js';
import { startIndexer, type RunningIndexer } from '../../services/indexer/src/indexer.js';
import { FakeChain, p2wpkhScript } from './fake-chain.js';
import { connectLineClient, type LineClient } from './rpc-line-client.js';

/** The fake chain's driver, whose fee calls fail as node:http does while `down.value`. */
function chainThatMayBeDown(): { driver: ChainDriver; down: { value: boolean } } {
  const chain = new FakeChain();
  chain.mineTo(p2wpkhScript(1));
  const driver = chain.asDriver();
  const down = { value: false };
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18334'), { code: 'ECONNREFUSED' });
  return {
    down,
    driver: {
      ...driver,
      estimateFeeRate: async (target) => {
        if (down.value) throw refused();
        return driver.estimateFeeRate(target);
      },
      getBlockCount: async () => {
        if (down.value) throw refused();
        return driver.getBlockCount();
      },
    },
  };
}

describe('blockchain.estimatefee', () => {
  let dataDir: string;
  let indexer: RunningIndexer;
  let client: LineClient;

  const start = async (driver: ChainDriver, fees?: FeePolicy) => {
    dataDir = mkdtempSync(join(tmpdir(), 'indexer-fees-'));
    indexer = await startIndexer(
      {
        host: '127.0.0.1',
        port: 0,
        dataDir,
        chain: { kind: 'btcd', url: 'http://127.0.0.1:1', user: 'unused', password: 'unused' },
        pollMs: 60_000,
        logLevel: 'silent',
        banner: 'test',
        fees,
      },
      { driver },
    );
    client = await connectLineClient(indexer.port);
  };

  afterEach(async () => {
    client?.close();
    await indexer?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers the lab's fixed rate at every target, in BTC/kvB", async () => {
    await start(chainThatMayBeDown().driver, { policy: 'fixed', satPerVbyte: 5 });
    for (const target of [0, 1, 6, 144, 1008])
      expect(await client.request('blockchain.estimatefee', [target]), `target ${target}`).toBe(0.00005);
  });

  for (const fees of [undefined, { policy: 'fixed', satPerVbyte: 5 } as const]) {
    it(`answers an error naming the node, not a rate, while the node cannot be reached (${fees?.policy ?? 'node'} policy)`, async () => {
      const { driver, down } = chainThatMayBeDown();
      await start(driver, fees);
      down.value = true;
      const answer = (await client.raw(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'blockchain.estimatefee', params: [6] }),
      )) as { result?: unknown; error?: { code: number; message: string } };
      expect(answer.result).toBeUndefined();
      expect(answer.error).toMatchObject({ code: 2, message: expect.stringContaining('the node cannot be reached') });
      down.value = false;
      expect(await client.request('blockchain.estimatefee', [6])).toBe(fees ? 0.00005 : 0.0002);
    });
  }
});
