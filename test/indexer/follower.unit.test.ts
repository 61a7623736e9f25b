import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChainDriver } from '../../lib/chain/types.js';
import { waitFor } from '../../lib/wait.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IndexerConfig } from '../../services/indexer/src/config.js';
import { sha256d, toDisplayHex } from '../../services/indexer/src/hashes.js';
import { NOTIFIED_POLL_MS, type ChainNotices } from '../../services/indexer/src/follower.js';
import { startIndexer, type RunningIndexer } from '../../services/indexer/src/indexer.js';
import { FakeChain, electrumScriptHash, p2wpkhScript, spend } from './fake-chain.js';
import { connectLineClient, type LineClient } from './rpc-line-client.js';

const alice = p2wpkhScript(1);
const bob = p2wpkhScript(2);
const aliceHash = electrumScriptHash(alice);
const bobHash = electrumScriptHash(bob);

/** The chain as a node sees it that has reached only `height()` of it (all of it when undefined). */
function seenUpTo(driver: ChainDriver, height: () => number | undefined): ChainDriver {
  return {
    ...driver,
    getBlockCount: async () => height() ?? driver.getBlockCount(),
    getBestBlockHash: async () => {
      const reached = height();
      return reached === undefined ? driver.getBestBlockHash() : driver.getBlockHash(reached);
    },
  };
}

describe('indexer on a staged chain', () => {
  let dataDir: string;
  let chain: FakeChain;
  let indexer: RunningIndexer;
  let client: LineClient;

  const config = (): IndexerConfig => ({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    chain: { kind: 'btcd', url: 'http://127.0.0.1:1', user: 'unused', password: 'unused' },
    pollMs: 60_000, // tests drive the follower with poke()
    logLevel: 'silent',
    banner: 'test',
  });

  const start = async () => {
    indexer = await startIndexer(config(), { driver: chain.asDriver() });
    await indexer.follower.poke();
    client = await connectLineClient(indexer.port);
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'indexer-unit-'));
    chain = new FakeChain();
    await start();
  });

  afterEach(async () => {
    client.close();
    await indexer.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('indexes coinbases, mempool spends, confirmations and a reorg that replaces them', async () => {
    const funding = chain.mineTo(alice).transactions![0]!;
    chain.mineTo(p2wpkhScript(9));
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_balance', [aliceHash])).toEqual({
      confirmed: 50,
      unconfirmed: 0,
    });
    expect(await client.request('blockchain.scripthash.get_history', [aliceHash])).toEqual([
      { tx_hash: funding.getId(), height: 1 },
    ]);
    const aliceStatus = await client.request('blockchain.scripthash.subscribe', [aliceHash]);
    expect(aliceStatus).toMatch(/^[0-9a-f]{64}$/);

    const payment = spend(
      [{ txid: funding.getId(), vout: 0 }],
      [
        { script: bob, value: 30n },
        { script: alice, value: 19n },
      ],
    );
    chain.mempool.set(payment.getId(), payment);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_balance', [aliceHash])).toEqual({
      confirmed: 50,
      unconfirmed: -31,
    });
    expect(await client.request('blockchain.scripthash.get_mempool', [bobHash])).toEqual([
      { tx_hash: payment.getId(), height: 0, fee: 1 },
    ]);
    expect(await client.request('blockchain.scripthash.listunspent', [aliceHash])).toEqual([
      { tx_hash: payment.getId(), tx_pos: 1, height: 0, value: 19 },
    ]);
    expect(client.notifications.map((n) => n.params[0])).toContain(aliceHash);

    chain.mineTo(p2wpkhScript(9), [payment]);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_balance', [bobHash])).toEqual({
      confirmed: 30,
      unconfirmed: 0,
    });
    expect(await client.request('blockchain.scripthash.get_history', [aliceHash])).toEqual([
      { tx_hash: funding.getId(), height: 1 },
      { tx_hash: payment.getId(), height: 3 },
    ]);
    const merkle = (await client.request('blockchain.transaction.get_merkle', [payment.getId(), 3])) as { pos: number };
    expect(merkle.pos).toBe(1);

    // A longer chain from height 2 replaces block 3: the payment leaves the index, Alice's coin is unspent again.
    chain.mineTo(p2wpkhScript(8), [], 2);
    chain.mineTo(p2wpkhScript(8));
    await indexer.follower.poke();
    expect(indexer.height()).toBe(4);
    expect(toDisplayHex(indexer.store.hashAt(3)!)).toBe(chain.blocks[3]!.getId());
    expect(await client.request('blockchain.scripthash.get_history', [bobHash])).toEqual([]);
    expect(await client.request('blockchain.scripthash.get_balance', [aliceHash])).toEqual({
      confirmed: 50,
      unconfirmed: 0,
    });
    expect(await client.request('blockchain.scripthash.listunspent', [aliceHash])).toEqual([
      { tx_hash: funding.getId(), tx_pos: 0, height: 1, value: 50 },
    ]);
    await expect(client.request('blockchain.transaction.get_merkle', [payment.getId(), 3])).rejects.toThrow(
      /not in the block/,
    );
  });

  it('unwinds a block whose transactions spend each other', async () => {
    const funding = chain.mineTo(alice).transactions![0]!;
    chain.mineTo(p2wpkhScript(9));
    const parent = spend([{ txid: funding.getId(), vout: 0 }], [{ script: bob, value: 49n }]);
    const child = spend([{ txid: parent.getId(), vout: 0 }], [{ script: alice, value: 48n }]);
    chain.mineTo(p2wpkhScript(9), [parent, child]);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.listunspent', [bobHash])).toEqual([]);
    expect(await client.request('blockchain.scripthash.get_history', [bobHash])).toEqual([
      { tx_hash: parent.getId(), height: 3 },
      { tx_hash: child.getId(), height: 3 },
    ]);
    expect(await client.request('blockchain.scripthash.get_balance', [aliceHash])).toEqual({
      confirmed: 48,
      unconfirmed: 0,
    });

    chain.mineTo(p2wpkhScript(8), [], 2);
    chain.mineTo(p2wpkhScript(8));
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_history', [bobHash])).toEqual([]);
    expect(await client.request('blockchain.scripthash.listunspent', [bobHash])).toEqual([]);
    expect(await client.request('blockchain.scripthash.listunspent', [aliceHash])).toEqual([
      { tx_hash: funding.getId(), tx_pos: 0, height: 1, value: 50 },
    ]);
  });

  it('marks a mempool tx with an unconfirmed parent with height -1 until the parent confirms', async () => {
    const funding = chain.mineTo(alice).transactions![0]!;
    const parent = spend([{ txid: funding.getId(), vout: 0 }], [{ script: bob, value: 49n }]);
    const child = spend([{ txid: parent.getId(), vout: 0 }], [{ script: bob, value: 47n }]);
    chain.mempool.set(parent.getId(), parent);
    chain.mempool.set(child.getId(), child);
    await indexer.follower.poke();
    await client.request('blockchain.scripthash.subscribe', [bobHash]);
    expect(await client.request('blockchain.scripthash.get_history', [bobHash])).toEqual([
      { tx_hash: parent.getId(), height: 0, fee: 1 },
      { tx_hash: child.getId(), height: -1, fee: 2 },
    ]);
    expect(await client.request('blockchain.scripthash.listunspent', [bobHash])).toEqual([
      { tx_hash: child.getId(), tx_pos: 0, height: 0, value: 47 },
    ]);
    expect(await client.request('blockchain.scripthash.get_balance', [bobHash])).toEqual({
      confirmed: 0,
      unconfirmed: 47,
    });

    chain.mineTo(p2wpkhScript(9), [parent]);
    chain.mempool.set(child.getId(), child);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_history', [bobHash])).toEqual([
      { tx_hash: parent.getId(), height: 2 },
      { tx_hash: child.getId(), height: 0, fee: 2 },
    ]);
    expect(await client.request('blockchain.scripthash.get_balance', [bobHash])).toEqual({
      confirmed: 49,
      unconfirmed: -2,
    });
    await waitFor(async () => client.notifications.length > 0, { timeoutMs: 2_000, what: 'a status notification' });
    expect(client.notifications.at(-1)!.params).toEqual([bobHash, expect.stringMatching(/^[0-9a-f]{64}$/)]);

    expect(await client.request('blockchain.scripthash.unsubscribe', [bobHash])).toBe(true);
    expect(await client.request('blockchain.scripthash.unsubscribe', [bobHash])).toBe(false);
    const notified = client.notifications.length;
    chain.mineTo(p2wpkhScript(9), [child]);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_balance', [bobHash])).toEqual({
      confirmed: 47,
      unconfirmed: 0,
    });
    expect(client.notifications.length).toBe(notified);
  });

  it('resolves a mempool spend of an output in a block the index has not reached yet through the node', async () => {
    client.close();
    await indexer.close();
    let frozenHeight: number | undefined;
    indexer = await startIndexer(config(), { driver: seenUpTo(chain.asDriver(), () => frozenHeight) });
    client = await connectLineClient(indexer.port);
    frozenHeight = indexer.height();
    const funding = chain.mineTo(alice).transactions![0]!;
    const payment = spend([{ txid: funding.getId(), vout: 0 }], [{ script: bob, value: 45n }]);
    chain.mempool.set(payment.getId(), payment);
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_mempool', [bobHash])).toEqual([
      { tx_hash: payment.getId(), height: 0, fee: 5 },
    ]);

    frozenHeight = undefined;
    await indexer.follower.poke();
    expect(await client.request('blockchain.scripthash.get_balance', [aliceHash])).toEqual({
      confirmed: 50,
      unconfirmed: -50,
    });
  });

  it('starts and serves while the node is down, and catches up once it is back', async () => {
    client.close();
    await indexer.close();
    const driver = chain.asDriver();
    let down = true;
    const flaky = {
      ...driver,
      getBestBlockHash: () => (down ? Promise.reject(new Error('connect ECONNREFUSED')) : driver.getBestBlockHash()),
    };
    chain.mineTo(alice);
    indexer = await startIndexer(config(), { driver: flaky });
    client = await connectLineClient(indexer.port);
    expect(await client.request('server.ping')).toBeNull();
    expect(indexer.height()).toBe(0);
    down = false;
    await indexer.follower.poke();
    expect(indexer.height()).toBe(1);
  });

  it("follows the node's notices between its rare polls, and polls at its usual pace once they are lost", async () => {
    client.close();
    await indexer.close();
    let changed = () => {};
    let lost = () => {};
    let subscribed = true;
    const notices: ChainNotices = (onChange, onLost) => {
      [changed, lost] = [onChange, onLost];
      return { subscribed: () => subscribed, stop: () => undefined };
    };
    indexer = await startIndexer({ ...config(), pollMs: 50 }, { driver: chain.asDriver(), notices });
    expect(indexer.height()).toBe(0);
    // heard of: the next poll is NOTIFIED_POLL_MS away
    chain.mineTo(alice);
    changed();
    await waitFor(async () => indexer.height() === 1, {
      timeoutMs: NOTIFIED_POLL_MS / 2,
      what: 'the notified block indexed',
    });
    // not heard of, the notices lost: the follower polls every 50 ms again
    chain.mineTo(alice);
    subscribed = false;
    lost();
    await waitFor(async () => indexer.height() === 2, {
      timeoutMs: NOTIFIED_POLL_MS / 2,
      what: 'the block indexed by a poll',
    });
  });

  it('waits for a restarted node that is being given its blocks back, instead of unwinding to it', async () => {
    client.close();
    await indexer.close();
    const funding = chain.mineTo(alice).transactions![0]!;
    chain.mineTo(p2wpkhScript(9));
    let replayedUpTo: number | undefined;
    indexer = await startIndexer(config(), { driver: seenUpTo(chain.asDriver(), () => replayedUpTo) });
    client = await connectLineClient(indexer.port);
    await client.request('blockchain.scripthash.subscribe', [aliceHash]);
    for (replayedUpTo of [0, 1]) {
      await indexer.follower.poke();
      expect(indexer.height()).toBe(2);
      expect(await client.request('blockchain.scripthash.get_history', [aliceHash])).toEqual([
        { tx_hash: funding.getId(), height: 1 },
      ]);
    }
    replayedUpTo = undefined;
    chain.mineTo(p2wpkhScript(9));
    await indexer.follower.poke();
    expect(indexer.height()).toBe(3);
    // alice's history never changed, so she was never told it had
    expect(
      client.notifications.filter((notification) => notification.method === 'blockchain.scripthash.subscribe'),
    ).toEqual([]);
  });

  it('resumes from its index on disk after a restart', async () => {
    const funding = chain.mineTo(alice).transactions![0]!;
    await indexer.follower.poke();
    const tipBefore = await client.request('blockchain.headers.subscribe');
    client.close();
    await indexer.close();

    chain.mineTo(bob);
    let fetched = 0;
    const driver = chain.asDriver();
    const counting = {
      ...driver,
      getBlocksAtHeights: (heights: number[]) => ((fetched += heights.length), driver.getBlocksAtHeights(heights)),
    };
    indexer = await startIndexer(config(), { driver: counting });
    client = await connectLineClient(indexer.port);
    expect(fetched).toBe(1);
    expect(indexer.height()).toBe(2);
    expect(tipBefore).toMatchObject({ height: 1 });
    expect(await client.request('blockchain.scripthash.get_history', [aliceHash])).toEqual([
      { tx_hash: funding.getId(), height: 1 },
    ]);
  });

  it('answers batches, headers with checkpoints, and protocol errors', async () => {
    chain.mineTo(alice);
    chain.mineTo(alice);
    await indexer.follower.poke();
    const batch = (await client.raw(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'server.ping', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'blockchain.block.header', params: [1] },
        { jsonrpc: '2.0', id: 3, method: 'no.such.method', params: [] },
      ]),
    )) as { id: number; result?: unknown; error?: { code: number } }[];
    expect(batch.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(batch[0]!.result).toBeNull();
    expect(batch[1]!.result).toBe(chain.blocks[1]!.toHex(true));
    expect(batch[2]!.error!.code).toBe(-32601);

    const headers = (await client.request('blockchain.block.headers', [0, 10])) as { count: number; hex: string };
    expect(headers.count).toBe(3);
    expect(headers.hex).toBe(chain.blocks.map((b) => b.toHex(true)).join(''));
    const proof = (await client.request('blockchain.block.header', [1, 2])) as {
      header: string;
      branch: string[];
      root: string;
    };
    expect(proof.header).toBe(chain.blocks[1]!.toHex(true));
    // Block hashes 0..2: the root pairs (h0, h1) and (h2, h2); the branch of h1 is h0, then hash(h2, h2).
    const h = chain.blocks.map((b) => Buffer.from(b.getHash()));
    expect(proof.branch).toEqual([toDisplayHex(h[0]!), toDisplayHex(sha256d(Buffer.concat([h[2]!, h[2]!])))]);
    expect(proof.root).toBe(
      toDisplayHex(
        sha256d(Buffer.concat([sha256d(Buffer.concat([h[0]!, h[1]!])), sha256d(Buffer.concat([h[2]!, h[2]!]))])),
      ),
    );

    expect(await client.raw('not json')).toMatchObject({ error: { code: -32700 } });
    await expect(client.request('blockchain.scripthash.get_balance', ['xyz'])).rejects.toThrow(/64-character hex/);
    const features = (await client.request('server.features')) as { genesis_hash: string; hash_function: string };
    expect(features).toMatchObject({ genesis_hash: chain.blocks[0]!.getId(), hash_function: 'sha256' });
    expect(await client.request('blockchain.estimatefee', [2])).toBe(0.0002);
  });

  it('negotiates the protocol version once per connection and refuses a version it does not speak', async () => {
    expect(await client.request('server.version', ['test', ['1.2', '1.4']])).toEqual(['reglab-indexer 0.1.0', '1.4']);
    await expect(client.request('server.version', ['test', '1.4'])).rejects.toThrow(/already sent on this connection/);
    expect(await client.request('server.ping')).toBeNull();

    for (const unsupported of ['1.5', ['1.5', '1.6'], '1.2', ['1.0', '1.3']]) {
      const other = await connectLineClient(indexer.port);
      const closed = new Promise<void>((resolve) => other.socket.once('close', () => resolve()));
      const answer = (await other.raw(
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server.version', params: ['test', unsupported] }),
      )) as { error?: { code: number; message: string } };
      expect(answer.error, JSON.stringify(unsupported)).toMatchObject({
        code: 1,
        message: expect.stringMatching(/unsupported protocol version .*this server speaks 1\.4/),
      });
      await closed; // no version in common: the server ends the connection
    }
    const malformed = await connectLineClient(indexer.port);
    await expect(malformed.request('server.version', ['test', 'latest'])).rejects.toThrow(/protocol_version must be/);
    expect(await malformed.request('server.version', ['test'])).toEqual(['reglab-indexer 0.1.0', '1.4']);
    malformed.close();
  });

  it('estimates fees that never rise with the target, the relay minimum for slow targets the node does not estimate', async () => {
    client.close();
    await indexer.close();
    // The node estimates 6 sat/vB for one block and 2 up to 25 blocks, nothing further out.
    const rates: Record<number, number> = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [i + 1, i === 0 ? 6 : 2]),
    );
    indexer = await startIndexer(config(), {
      driver: { ...chain.asDriver(), estimateFeeRate: async (target) => rates[target] },
    });
    client = await connectLineClient(indexer.port);
    const estimates = [];
    for (const target of [1, 2, 6, 25, 144, 1008])
      estimates.push(await client.request('blockchain.estimatefee', [target]));
    expect(estimates).toEqual([0.00006, 0.00002, 0.00002, 0.00002, 0.00001, 0.00001]);
  });

  it('serves confirmed transactions from their block when the node has no transaction index', async () => {
    client.close();
    await indexer.close();
    const funding = chain.mineTo(alice).transactions![0]!;
    const driver = chain.asDriver();
    const withoutTxIndex = {
      ...driver,
      getRawTransactionHex: () => Promise.reject(new Error('No information available about transaction')),
    };
    indexer = await startIndexer(config(), { driver: withoutTxIndex });
    client = await connectLineClient(indexer.port);
    expect(await client.request('blockchain.transaction.get', [funding.getId()])).toBe(funding.toHex());
    await expect(client.request('blockchain.transaction.get', ['ab'.repeat(32)])).rejects.toThrow(
      /No such mempool or blockchain transaction/,
    );
    const block = chain.blocks[1]!;
    expect(await client.request('blockchain.transaction.get', [funding.getId(), true])).toMatchObject({
      txid: funding.getId(),
      hex: funding.toHex(),
      blockhash: block.getId(),
      confirmations: 1,
      blocktime: block.timestamp,
    });
  });
});
