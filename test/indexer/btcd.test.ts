// Its own lab of btcd alone (up in about a second): the indexer it checks runs in the test and
// follows the reorgs it makes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { Block, Transaction, address as addressLib, networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegtestBlock } from '../../lib/chain/block-builder.js';
import { JsonRpcClient } from '../../lib/chain/rpc.js';
import { ChainRpcError } from '../../lib/chain/types.js';
import { fund, mineBlocks } from '../../control-plane/src/lab/operations.js';
import { waitFor } from '../../lib/wait.js';
import { fromDisplayHex, scriptHash, sha256d, toDisplayHex } from '../../services/indexer/src/hashes.js';
import type { IndexerConfig } from '../../services/indexer/src/config.js';
import { startIndexer, type RunningIndexer } from '../../services/indexer/src/indexer.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { connectNpmElectrum, type NpmElectrum } from './electrum-npm-client.js';

const newAddress = () => payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address!;
const electrumHash = (address: string) =>
  toDisplayHex(scriptHash(addressLib.toOutputScript(address, networks.regtest)));

describe('indexer following a real btcd', () => {
  let regtest: Regtest;
  let dataDir: string;
  let indexer: RunningIndexer;
  let client: NpmElectrum;

  const config = (): IndexerConfig => ({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    chain: regtest.chainRpc,
    pollMs: 100,
    logLevel: 'warn',
    banner: 'test',
  });
  const caughtUp = async () => {
    const tip = await regtest.chain.getBlockCount();
    await waitFor(async () => indexer.height() === tip, {
      timeoutMs: 30_000,
      what: `the indexer to reach height ${tip}`,
    });
  };

  beforeAll(async () => {
    regtest = await startRegtest();
    dataDir = mkdtempSync(join(tmpdir(), 'indexer-btcd-'));
    indexer = await startIndexer(config());
    await caughtUp();
    client = await connectNpmElectrum(indexer.port);
  });

  afterAll(async () => {
    client?.close();
    await indexer?.close();
    await regtest?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses a chain node whose certificate it was not given, and passes on the node's refusal of a password", async () => {
    const trusting = new JsonRpcClient(regtest.chainRpc);
    const stranger = new JsonRpcClient({ ...regtest.chainRpc, tlsCertPem: rootCertificates[0]! });
    const impostor = new JsonRpcClient({ ...regtest.chainRpc, password: 'not-the-password' });
    try {
      expect(regtest.chainRpc.url).toMatch(/^https:/);
      for (let i = 0; i < 3; i++)
        expect(await trusting.call<number>('getblockcount')).toBe(await regtest.chain.getBlockCount());
      await expect(stranger.call('getblockcount')).rejects.toThrow(/certificate/i);
      const refusal = impostor.call('getblockcount');
      await expect(refusal).rejects.toBeInstanceOf(ChainRpcError);
      await expect(refusal).rejects.toThrow(/btcd answered 401/);
    } finally {
      trusting.close();
      stranger.close();
      impostor.close();
    }
  });

  it('answers calls made at once on its one connection, and a batch, each with its own answers', async () => {
    const rpc = new JsonRpcClient(regtest.chainRpc);
    try {
      const height = await regtest.chain.getBlockCount();
      const heights = Array.from({ length: 20 }, (_, i) => height - i);
      const [batched, ...single] = await Promise.all([
        rpc.batch<string>(heights.map((at) => ({ method: 'getblockhash', params: [at] }))),
        ...heights.map((at) => rpc.call<string>('getblockhash', [at])),
      ]);
      expect(new Set(single).size).toBe(heights.length);
      expect(single).toEqual(batched);
      await expect(rpc.call('getblockhash', [height + 1_000])).rejects.toBeInstanceOf(ChainRpcError);
    } finally {
      rpc.close();
    }
  });

  it('serves headers that chain from the regtest genesis', async () => {
    const features = await client.request<{ genesis_hash: string }>('server.features');
    expect(features.genesis_hash).toBe('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    const tip = await client.request<{ height: number; hex: string }>('blockchain.headers.subscribe');
    expect(tip.height).toBe(await regtest.chain.getBlockCount());
    expect(toDisplayHex(sha256d(Buffer.from(tip.hex, 'hex')))).toBe(await regtest.chain.getBestBlockHash());
    const chunk = await client.request<{ count: number; hex: string }>('blockchain.block.headers', [0, 2016]);
    expect(chunk.count).toBe(tip.height + 1);
    for (let height = 1; height < chunk.count; height++) {
      const header = Buffer.from(chunk.hex.slice(height * 160, height * 160 + 160), 'hex');
      const previous = Buffer.from(chunk.hex.slice((height - 1) * 160, height * 160), 'hex');
      expect(header.subarray(4, 36).equals(sha256d(previous))).toBe(true);
    }
  });

  it("fetches blocks in one batch as one by one; a height past the tip is btcd's own error", async () => {
    const tip = await regtest.chain.getBlockCount();
    const heights = [0, 1, tip];
    const batched = await regtest.chain.getBlocksAtHeights(heights);
    const oneByOne = await Promise.all(
      heights.map(async (height) => {
        const hash = await regtest.chain.getBlockHash(height);
        return { height, hash, hex: await regtest.chain.getBlockHex(hash) };
      }),
    );
    expect(batched).toEqual(oneByOne);
    await expect(regtest.chain.getBlocksAtHeights([tip, tip + 1])).rejects.toMatchObject({
      name: 'ChainRpcError',
      method: 'getblockhash',
      message: /out of range/i,
    });
  });

  it('sees coins mined to an address: balance, history, unspent outputs', async () => {
    const address = newAddress();
    const { hashes } = await mineBlocks(regtest.session, 2, address);
    await caughtUp();
    const hash = electrumHash(address);
    const [balance] = await client.batch<{ confirmed: number }>('blockchain.scripthash.get_balance', [hash]);
    const summary = await regtest.chain.getBlockSummary(hashes[0]!);
    const history = await client.request<{ tx_hash: string; height: number }[]>('blockchain.scripthash.get_history', [
      hash,
    ]);
    expect(history).toHaveLength(2);
    expect(history[0]).toEqual({ tx_hash: summary.txids[0], height: summary.height });
    const unspent = await client.request<{ value: number; height: number }[]>('blockchain.scripthash.listunspent', [
      hash,
    ]);
    expect(unspent).toHaveLength(2);
    expect(balance!.result!.confirmed).toBe(unspent[0]!.value + unspent[1]!.value);
    expect(balance!.result!.confirmed).toBeGreaterThan(0);
  });

  it('shows a payment in the mempool, notifies subscribers, then confirms it with a valid Merkle proof', async () => {
    const address = newAddress();
    const hash = electrumHash(address);
    const before = await client.request('blockchain.scripthash.subscribe', [hash]);
    expect(before).toMatchObject({ result: null }); // the npm client hands back the whole response for a null result
    const { txid } = await fund(regtest.session, { address, amountSat: 1_234_567n, confirm: false });
    await waitFor(async () => client.notifications('blockchain.scripthash.subscribe').some(([h]) => h === hash), {
      timeoutMs: 10_000,
      what: 'a status notification for the funded script hash',
    });
    const mempool = await client.request<{ tx_hash: string; height: number; fee: number }[]>(
      'blockchain.scripthash.get_mempool',
      [hash],
    );
    expect(mempool).toEqual([{ tx_hash: txid, height: 0, fee: expect.any(Number) }]);
    expect(mempool[0]!.fee).toBeGreaterThan(0);
    expect(await client.request('blockchain.scripthash.get_balance', [hash])).toEqual({
      confirmed: 0,
      unconfirmed: 1_234_567,
    });

    const { height } = await mineBlocks(regtest.session, 1);
    await caughtUp();
    expect(await client.request('blockchain.scripthash.get_balance', [hash])).toEqual({
      confirmed: 1_234_567,
      unconfirmed: 0,
    });
    // the notification of the new tip reaches the client on its own, possibly after the answers above
    await waitFor(
      async () =>
        (client.notifications('blockchain.headers.subscribe').at(-1)?.[0] as { height?: number } | undefined)
          ?.height === height,
      {
        timeoutMs: 10_000,
        what: `a headers notification for height ${height}`,
      },
    );
    const proof = await client.request<{ block_height: number; merkle: string[]; pos: number }>(
      'blockchain.transaction.get_merkle',
      [txid, height],
    );
    const header = Buffer.from(await client.request<string>('blockchain.block.header', [height]), 'hex');
    const root = proof.merkle.reduce(
      (acc, sibling, level) =>
        sha256d(
          (proof.pos >> level) & 1
            ? Buffer.concat([fromDisplayHex(sibling), acc])
            : Buffer.concat([acc, fromDisplayHex(sibling)]),
        ),
      fromDisplayHex(txid),
    );
    expect(root.equals(header.subarray(36, 68))).toBe(true);
    const rawTx = await client.request<string>('blockchain.transaction.get', [txid]);
    expect(Transaction.fromHex(rawTx).getId()).toBe(txid);
    expect(await client.request('blockchain.transaction.id_from_pos', [height, proof.pos])).toBe(txid);
  });

  it("answers verbose transactions in bitcoind's shape, as btcd's getrawtransaction describes them", async () => {
    type Verbose = { vin: unknown[]; vout: { scriptPubKey: Record<string, unknown> }[] } & Record<string, unknown>;
    const verbose = (txid: string) => client.request<Verbose>('blockchain.transaction.get', [txid, true]);
    // btcd adds the older reqSigs and addresses to each output script and calls a coinbase's witness
    // `witness` (bitcoind: txinwitness); the rest is field for field the same
    const fromBtcd = async (txid: string) => {
      const btcd = await regtest.chain.call<Verbose>('getrawtransaction', [txid, 1]);
      return {
        ...btcd,
        vin: btcd.vin.map((input) => {
          const { witness, ...rest } = input as { witness?: string[] };
          return witness ? { ...rest, txinwitness: witness } : rest;
        }),
        vout: btcd.vout.map(({ scriptPubKey: { reqSigs: _reqSigs, addresses: _addresses, ...script }, ...output }) => ({
          ...output,
          scriptPubKey: script,
        })),
      };
    };
    const { txid } = await fund(regtest.session, { address: newAddress(), amountSat: 777_000n, confirm: false });
    const unconfirmed = await verbose(txid);
    expect(unconfirmed).toEqual(await fromBtcd(txid));
    expect(unconfirmed).not.toHaveProperty('confirmations');

    const { hashes } = await mineBlocks(regtest.session, 2);
    await caughtUp();
    const coinbase = (await regtest.chain.getBlockSummary(hashes[0]!)).txids[0]!;
    for (const id of [txid, coinbase]) expect(await verbose(id)).toEqual(await fromBtcd(id));
    expect(await verbose(txid)).toMatchObject({ blockhash: hashes[0], confirmations: 2 });

    await expect(verbose('ab'.repeat(32))).rejects.toThrow(/No such mempool or blockchain transaction/);
    const genesisCoinbase = '4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b';
    await expect(verbose(genesisCoinbase)).rejects.toThrow(
      /genesis block coinbase is not considered an ordinary transaction/,
    );
  });

  it("returns the node's reason when a broadcast is rejected", async () => {
    const summary = await regtest.chain.getBlockSummary(await regtest.chain.getBestBlockHash());
    const coinbaseHex = await regtest.chain.getRawTransactionHex(summary.txids[0]!);
    // btcd's own words: "TX rejected: transaction is an individual coinbase"
    await expect(client.request('blockchain.transaction.broadcast', [coinbaseHex])).rejects.toThrow(
      /^TX rejected: .*coinbase/,
    );
    // what is not one transaction never reaches the node: btcd would take a transaction and ignore bytes after it
    await expect(client.request('blockchain.transaction.broadcast', ['00'])).rejects.toThrow(
      /parameter raw_tx is not a serialized transaction/,
    );
  });

  it('unwinds blocks replaced by a longer competing chain', async () => {
    const victim = newAddress();
    const { txid } = await fund(regtest.session, { address: victim, amountSat: 500_000n, confirm: false });
    const miner = newAddress();
    const { hashes, height } = await mineBlocks(regtest.session, 1, miner);
    await caughtUp();
    expect(await client.request('blockchain.scripthash.get_balance', [electrumHash(victim)])).toEqual({
      confirmed: 500_000,
      unconfirmed: 0,
    });
    expect(await client.request('blockchain.scripthash.get_history', [electrumHash(miner)])).toHaveLength(1);

    // Two blocks on top of height-1, without the payment: btcd switches to them, the payment back in its mempool.
    let previous = await regtest.chain.getBlockHash(height - 1);
    const tipHeader = Block.fromHex(await regtest.chain.getBlockHeaderHex(hashes[0]!));
    for (let i = 0; i < 2; i++) {
      const block = buildRegtestBlock(
        {
          version: 0x20000000,
          previousblockhash: previous,
          transactions: [],
          coinbasevalue: 100_000,
          bits: tipHeader.bits.toString(16),
          curtime: tipHeader.timestamp + 1 + i,
          height: height + i,
        },
        newAddress(),
      );
      expect(await regtest.chain.call('submitblock', [block.toHex()])).toBeNull();
      previous = block.getId();
    }
    expect(await regtest.chain.getBestBlockHash()).toBe(previous);
    await caughtUp();
    await waitFor(
      async () =>
        indexer.store.hashAt(height + 1) !== undefined && toDisplayHex(indexer.store.hashAt(height + 1)!) === previous,
      {
        timeoutMs: 10_000,
        what: 'the indexer to follow the competing chain',
      },
    );
    expect(await client.request('blockchain.scripthash.get_history', [electrumHash(miner)])).toEqual([]);
    await waitFor(
      async () => {
        const history = await client.request<{ tx_hash: string; height: number }[]>(
          'blockchain.scripthash.get_history',
          [electrumHash(victim)],
        );
        return history.length === 1 && history[0]!.tx_hash === txid && history[0]!.height === 0;
      },
      { timeoutMs: 10_000, what: 'the replaced payment to be back in the mempool, unconfirmed' },
    );
    await expect(client.request('blockchain.transaction.get_merkle', [txid, height])).rejects.toThrow(
      /not in the block/,
    );
    await mineBlocks(regtest.session, 1);
    await caughtUp();
    expect(await client.request('blockchain.scripthash.get_balance', [electrumHash(victim)])).toEqual({
      confirmed: 500_000,
      unconfirmed: 0,
    });
  });

  it('resumes from its index on disk after a restart', async () => {
    client.close();
    await indexer.close();
    const heightBefore = await regtest.chain.getBlockCount();
    await mineBlocks(regtest.session, 3);
    let blocksFetched = 0;
    const driver = regtest.chain;
    const counting = Object.assign(Object.create(driver), {
      getBlocksAtHeights: (heights: number[]) => (
        (blocksFetched += heights.length), driver.getBlocksAtHeights(heights)
      ),
    });
    indexer = await startIndexer(config(), { driver: counting });
    await caughtUp();
    expect(indexer.height()).toBe(heightBefore + 3);
    expect(blocksFetched).toBe(3);
    client = await connectNpmElectrum(indexer.port);
    expect(await client.request('server.ping')).toMatchObject({ result: null });
  });

  it("hears of a payment and a block from btcd's notices, with no poll due for ten minutes", async () => {
    client.close();
    await indexer.close();
    indexer = await startIndexer({ ...config(), pollMs: 600_000 });
    client = await connectNpmElectrum(indexer.port);
    const address = newAddress();
    const hash = electrumHash(address);
    await client.request('blockchain.scripthash.subscribe', [hash]);
    await client.request('blockchain.headers.subscribe');
    // fund and mineBlocks go to btcd's RPC, not through the indexer, which therefore has no reason to look
    const { txid } = await fund(regtest.session, { address, amountSat: 250_000n, confirm: false });
    await waitFor(async () => client.notifications('blockchain.scripthash.subscribe').some(([h]) => h === hash), {
      timeoutMs: 10_000,
      what: 'a status notification for the payment',
    });
    expect(await client.request('blockchain.scripthash.get_mempool', [hash])).toEqual([
      { tx_hash: txid, height: 0, fee: expect.any(Number) },
    ]);
    const { height } = await mineBlocks(regtest.session, 1);
    await waitFor(
      async () =>
        (client.notifications('blockchain.headers.subscribe').at(-1)?.[0] as { height?: number } | undefined)
          ?.height === height,
      {
        timeoutMs: 10_000,
        what: `a headers notification for height ${height}`,
      },
    );
    expect(await client.request('blockchain.scripthash.get_balance', [hash])).toEqual({
      confirmed: 250_000,
      unconfirmed: 0,
    });
  });
});
