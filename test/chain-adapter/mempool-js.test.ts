// The client web wallets use for mempool.space, @mempool/mempool.js, against the adapter on a real
// lab: every REST call of its bitcoin API (blocks, fees, mempool, addresses, transactions,
// difficulty) answers with the shape the client declares.
// Its own lab of btcd alone (up in about a second): the adapter and indexer run in the test, and
// the mempool it reads holds only the test's transactions.
import mempoolJS from '@mempool/mempool.js';
import { Psbt, networks } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { freshKey, startAdapter, waitIndexed, type RunningAdapter } from './support.js';

const hex64 = expect.stringMatching(/^[0-9a-f]{64}$/);
const txShape = {
  txid: hex64,
  version: expect.any(Number),
  locktime: expect.any(Number),
  size: expect.any(Number),
  weight: expect.any(Number),
  fee: expect.any(Number),
  vin: expect.any(Array),
  vout: expect.any(Array),
  status: { confirmed: expect.any(Boolean) },
};
const blockShape = {
  id: hex64,
  height: expect.any(Number),
  version: expect.any(Number),
  timestamp: expect.any(Number),
  tx_count: expect.any(Number),
  size: expect.any(Number),
  weight: expect.any(Number),
  merkle_root: hex64,
  previousblockhash: hex64,
  mediantime: expect.any(Number),
  nonce: expect.any(Number),
  bits: expect.any(Number),
  difficulty: expect.any(Number),
};

describe('mempool.js (the mempool.space client) against the adapter', () => {
  let regtest: Regtest;
  let adapter: RunningAdapter;
  let bitcoin: ReturnType<typeof mempoolJS>['bitcoin'];
  const receiver = freshKey();
  const spender = freshKey();
  const destination = freshKey();
  let confirmedTxid: string;
  let blockHash: string;
  let parentTxid: string;
  let childTxid: string;

  beforeAll(async () => {
    regtest = await startRegtest();
    adapter = await startAdapter(regtest);
    bitcoin = mempoolJS({ hostname: new URL(adapter.url).host, protocol: 'http' }).bitcoin;

    confirmedTxid = await regtest.session.labWallet.send([{ address: receiver.address, amountSat: 100_000n }]);
    [blockHash] = await regtest.chain.mine(1, freshKey().address);
    await waitIndexed(adapter, regtest);
    // In the mempool: a payment to `spender`, and a child spending it (a CPFP pair).
    parentTxid = await regtest.session.labWallet.send([{ address: spender.address, amountSat: 50_000n }]);
    const parent = await adapter.get<{ vout: { scriptpubkey_address?: string; value: number }[] }>(
      `/api/tx/${parentTxid}`,
    );
    const vout = parent.vout.findIndex((output) => output.scriptpubkey_address === spender.address);
    const child = new Psbt({ network: networks.regtest })
      .addInput({ hash: parentTxid, index: vout, witnessUtxo: { script: spender.outputScript, value: 50_000n } })
      .addOutput({ address: destination.address, value: 45_000n });
    child.signInput(0, spender.signer).finalizeAllInputs();
    childTxid = (await bitcoin.transactions.postTx({ txhex: child.extractTransaction().toHex() })) as string;
    await waitFor(async () => (await bitcoin.mempool.getMempoolTxids()).includes(childTxid), {
      timeoutMs: 20_000,
      what: 'the child in the mempool',
    });
  });
  afterAll(async () => {
    await adapter?.close();
    await regtest?.stop();
  });

  it('blocks', async () => {
    const { blocks } = bitcoin;
    const tip = await blocks.getBlocksTipHeight();
    expect(tip).toBe(await regtest.chain.getBlockCount());
    expect(await blocks.getBlocksTipHash()).toBe(blockHash);
    expect(await blocks.getBlockHeight({ height: tip })).toBe(blockHash);
    expect(await blocks.getBlock({ hash: blockHash })).toMatchObject({
      ...blockShape,
      id: blockHash,
      height: tip,
      extras: { reward: expect.any(Number), totalFees: expect.any(Number) },
    });
    const page = await blocks.getBlocks({ start_height: tip });
    expect(page).toHaveLength(Math.min(15, tip + 1));
    expect(page[0]).toMatchObject({ ...blockShape, id: blockHash });
    expect(await blocks.getBlocks({ start_height: tip + 100 })).toEqual([]);
    expect(await blocks.getBlockStatus({ hash: blockHash })).toEqual({ in_best_chain: true, height: tip });
    const txids = await blocks.getBlockTxids({ hash: blockHash });
    expect(txids).toHaveLength(2);
    expect(txids[1]).toBe(confirmedTxid);
    expect(await blocks.getBlockTxid({ hash: blockHash, index: 1 })).toBe(confirmedTxid);
    const txs = (await blocks.getBlockTxs({ hash: blockHash, start_index: 0 })) as unknown as object[];
    expect(txs.map((tx) => (tx as { txid: string }).txid)).toEqual(txids);
    expect(txs[1]).toMatchObject({ ...txShape, status: { confirmed: true, block_hash: blockHash, block_height: tip } });
    expect(await blocks.getBlockHeader({ hash: blockHash })).toMatch(/^[0-9a-f]{160}$/);
    expect(((await blocks.getBlockRaw({ hash: blockHash })) as string).length).toBeGreaterThan(80);
  });

  it('fees', async () => {
    const { fees } = bitcoin;
    const recommended = await fees.getFeesRecommended();
    expect(recommended).toEqual({
      fastestFee: expect.any(Number),
      halfHourFee: expect.any(Number),
      hourFee: expect.any(Number),
      economyFee: expect.any(Number),
      minimumFee: 1,
    });
    const projected = await fees.getFeesMempoolBlocks();
    expect(projected).toEqual([
      {
        blockSize: expect.any(Number),
        blockVSize: expect.any(Number),
        nTx: 2,
        totalFees: expect.any(Number),
        medianFee: expect.any(Number),
        feeRange: expect.any(Array),
      },
    ]);
    expect(projected[0]!.totalFees).toBeGreaterThanOrEqual(5_000);
    // mempool.js types the answer as mempool blocks; mempool.space (and the adapter) answer the package
    const cpfp = (await fees.getCPFP({ txid: childTxid })) as unknown as {
      ancestors: { txid: string }[];
      effectiveFeePerVsize: number;
    };
    expect(cpfp).toMatchObject({
      ancestors: [{ txid: parentTxid, fee: expect.any(Number), weight: expect.any(Number) }],
      descendants: [],
      bestDescendant: null,
      effectiveFeePerVsize: expect.any(Number),
    });
    const ofParent = (await fees.getCPFP({ txid: parentTxid })) as unknown as { descendants: { txid: string }[] };
    expect(ofParent).toMatchObject({
      ancestors: [],
      descendants: [{ txid: childTxid }],
      bestDescendant: { txid: childTxid },
    });
  });

  it('mempool', async () => {
    const { mempool } = bitcoin;
    const summary = (await mempool.getMempool()) as unknown as { count: number; fee_histogram: [number, number][] };
    expect(summary).toEqual({
      count: 2,
      vsize: expect.any(Number),
      total_fee: expect.any(Number),
      fee_histogram: expect.any(Array),
    });
    expect(summary.fee_histogram.every(([rate, vsize]) => typeof rate === 'number' && vsize > 0)).toBe(true);
    expect((await mempool.getMempoolTxids()).sort()).toEqual([parentTxid, childTxid].sort());
    const recent = await mempool.getMempoolRecent();
    expect(recent.map((tx) => tx.txid).sort()).toEqual([parentTxid, childTxid].sort());
    expect(recent[0]).toEqual({
      txid: hex64,
      fee: expect.any(Number),
      vsize: expect.any(Number),
      value: expect.any(Number),
    });
  });

  it('addresses', async () => {
    const { addresses } = bitcoin;
    const stats = {
      funded_txo_count: expect.any(Number),
      funded_txo_sum: expect.any(Number),
      spent_txo_count: expect.any(Number),
      spent_txo_sum: expect.any(Number),
      tx_count: expect.any(Number),
    };
    expect(await addresses.getAddress({ address: receiver.address })).toEqual({
      address: receiver.address,
      chain_stats: { ...stats, funded_txo_sum: 100_000 },
      mempool_stats: stats,
    });
    expect((await addresses.getAddressTxs({ address: receiver.address })).map((tx) => tx.txid)).toEqual([
      confirmedTxid,
    ]);
    expect(await addresses.getAddressTxs({ address: receiver.address, after_txid: confirmedTxid })).toEqual([]);
    expect((await addresses.getAddressTxsChain({ address: receiver.address }))[0]).toMatchObject(txShape);
    expect((await addresses.getAddressTxsMempool({ address: spender.address })).map((tx) => tx.txid).sort()).toEqual(
      [parentTxid, childTxid].sort(),
    );
    expect(await addresses.getAddressTxsUtxo({ address: receiver.address })).toEqual([
      {
        txid: confirmedTxid,
        vout: expect.any(Number),
        value: 100_000,
        status: expect.objectContaining({ confirmed: true, block_hash: blockHash }),
      },
    ]);
  });

  it('transactions', async () => {
    const { transactions } = bitcoin;
    expect(await transactions.getTx({ txid: confirmedTxid })).toMatchObject({ ...txShape, txid: confirmedTxid });
    expect(await transactions.getTxStatus({ txid: confirmedTxid })).toEqual({
      confirmed: true,
      block_height: expect.any(Number),
      block_hash: blockHash,
      block_time: expect.any(Number),
    });
    const hex = await transactions.getTxHex({ txid: confirmedTxid });
    expect(hex).toBe(await regtest.chain.getRawTransactionHex(confirmedTxid));
    expect(((await transactions.getTxRaw({ txid: confirmedTxid })) as string).length).toBeGreaterThan(0);
    expect(await transactions.getTxMerkleProof({ txid: confirmedTxid })).toEqual({
      block_height: expect.any(Number),
      merkle: expect.any(Array),
      pos: 1,
    });
    expect(await transactions.getTxMerkleBlockProof({ txid: confirmedTxid })).toMatch(/^[0-9a-f]+$/);
    const outspends = await transactions.getTxOutspends({ txid: parentTxid });
    expect(outspends).toContainEqual({ spent: true, txid: childTxid, vin: 0, status: { confirmed: false } });
    expect(await transactions.getTxOutspend({ txid: childTxid, vout: 0 })).toEqual({ spent: false });
  });

  it('difficulty', async () => {
    const { difficulty } = bitcoin;
    const tip = await regtest.chain.getBlockCount();
    expect(await difficulty.getDifficultyAdjustment()).toEqual({
      progressPercent: expect.any(Number),
      difficultyChange: 0,
      estimatedRetargetDate: expect.any(Number),
      remainingBlocks: 2016 - (tip % 2016),
      remainingTime: expect.any(Number),
      previousRetarget: 0,
      nextRetargetHeight: tip - (tip % 2016) + 2016,
      timeAvg: expect.any(Number),
      timeOffset: 0,
      expectedBlocks: expect.any(Number),
    });
    const rates = await difficulty.getHashrate({ interval: '1m' });
    expect(rates).toEqual({
      hashrates: expect.any(Array),
      difficulty: expect.any(Array),
      currentHashrate: expect.any(Number),
      currentDifficulty: expect.any(Number),
    });
    expect(rates.hashrates[0]).toEqual({ timestamp: expect.any(Number), avgHashrate: expect.any(Number) });
    expect(rates.difficulty[0]).toEqual({
      time: expect.any(Number),
      height: expect.any(Number),
      difficulty: rates.currentDifficulty,
      adjustment: 1,
    });
  });

  it('Esplora routes beyond mempool.js: blocks above the tip, address prefixes, text/plain in OpenAPI', async () => {
    const tip = await regtest.chain.getBlockCount();
    expect(await adapter.get(`/api/blocks/${tip + 1}`)).toEqual([]);
    expect(await adapter.get(`/api/blocks/${tip}`)).toHaveLength(10);
    expect(await adapter.get(`/api/address-prefix/${receiver.address.slice(0, 20)}`)).toEqual([receiver.address]);
    expect(await adapter.get(`/api/address-prefix/${destination.address.slice(0, 20).toUpperCase()}`)).toEqual([
      destination.address,
    ]);
    const paged = await fetch(`${adapter.url}/api/block/${blockHash}/txs/1`);
    expect(paged.status).toBe(400);

    const doc = await (await fetch(`${adapter.url}/openapi.json`)).json();
    for (const path of [
      '/api/blocks/tip/height',
      '/api/blocks/tip/hash',
      '/api/block-height/{height}',
      '/api/block/{hash}/header',
      '/api/tx/{txid}/hex',
      '/api/block/{hash}/txid/{index}',
    ]) {
      expect(Object.keys(doc.paths[path].get.responses['200'].content), path).toEqual(['text/plain']);
      expect(Object.keys(doc.paths[path].get.responses['500'].content), path).toEqual(['application/json']);
    }
    for (const path of [
      '/api/mempool',
      '/api/mempool/txids',
      '/api/mempool/recent',
      '/api/block/{hash}/txids',
      '/api/block/{hash}/txs/{start_index}',
      '/api/address-prefix/{prefix}',
      '/api/v1/block/{hash}',
      '/api/v1/blocks/{start_height}',
      '/api/v1/fees/mempool-blocks',
      '/api/v1/difficulty-adjustment',
    ]) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });
});
