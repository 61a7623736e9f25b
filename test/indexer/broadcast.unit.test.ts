// blockchain.transaction.broadcast on a staged chain: input that is not one whole transaction is the
// caller's error (JSON-RPC invalid params, naming raw_tx), and the node is not asked; what the node
// refuses is reported as its refusal.
import { afterEach, describe, expect, it } from 'vitest';
import { ChainRpcError, type ChainDriver } from '../../lib/chain/types.js';
import { ErrorCode } from '../../services/indexer/src/rpc/protocol.js';
import { FakeChain, p2wpkhScript, spend } from './fake-chain.js';
import type { LineClient } from './rpc-line-client.js';
import { startStagedIndexer, type StagedIndexer } from './staged-indexer.js';

describe('blockchain.transaction.broadcast', () => {
  let staged: StagedIndexer | undefined;
  let client: LineClient;
  let sent: string[];

  const start = async (driver: ChainDriver) => {
    sent = [];
    staged = await startStagedIndexer({
      ...driver,
      sendRawTransaction: (hex: string) => (sent.push(hex), driver.sendRawTransaction(hex)),
    });
    client = staged.client;
  };

  afterEach(async () => {
    await staged?.close();
    staged = undefined;
  });

  const broadcast = async (raw: unknown) =>
    (await client.raw(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'blockchain.transaction.broadcast', params: [raw] }),
    )) as { result?: string; error?: { code: number; message: string } };

  it('refuses what is not hex, or not one whole transaction, as invalid params without asking the node', async () => {
    const chain = new FakeChain();
    const funding = chain.mineTo(p2wpkhScript(1)).transactions![0]!;
    await start(chain.asDriver());
    const paymentTx = spend([{ txid: funding.getId(), vout: 0 }], [{ script: p2wpkhScript(2), value: 49n }]);
    const payment = paymentTx.toHex();

    for (const [raw, why] of [
      ['zz', /parameter raw_tx must be a hex string/],
      ['abc', /parameter raw_tx must be a hex string/],
      [42, /parameter raw_tx must be a hex string/],
      [`${payment}00`, /parameter raw_tx has 1 byte after the \d+-byte transaction/],
      [payment.slice(0, -8), /parameter raw_tx is not a serialized transaction/],
    ] as const) {
      const answer = await broadcast(raw);
      expect(answer.error?.code, String(raw)).toBe(ErrorCode.invalidParams);
      expect(answer.error?.message).toMatch(/^blockchain\.transaction\.broadcast: /);
      expect(answer.error?.message).toMatch(why);
    }
    expect(sent).toEqual([]);
    expect(chain.mempool.size).toBe(0);

    expect(await broadcast(payment)).toMatchObject({ result: paymentTx.getId() });
    expect(sent).toEqual([payment]);
  });

  it("answers the node's refusal as a bad request with the node's reason", async () => {
    const chain = new FakeChain();
    chain.mineTo(p2wpkhScript(1));
    const driver = chain.asDriver();
    await start({
      ...driver,
      sendRawTransaction: () =>
        Promise.reject(new ChainRpcError('sendrawtransaction', -26, 'TX rejected: orphan transaction')),
    });
    const orphan = spend([{ txid: 'ab'.repeat(32), vout: 0 }], [{ script: p2wpkhScript(2), value: 49n }]).toHex();
    expect((await broadcast(orphan)).error).toEqual({
      code: ErrorCode.badRequest,
      message: 'TX rejected: orphan transaction',
    });
  });
});
