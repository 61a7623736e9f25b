// Its own lab of btcd alone (up in about a second): the adapter and indexer it checks run in the
// test, over that chain, which it mines and spends from with the lab wallet.
import { Psbt, networks } from 'bitcoinjs-lib';
import { reorg } from '../../control-plane/src/lab/reorg.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainDriver } from '../../lib/chain/from-env.js';
import { waitFor } from '../../lib/wait.js';
import { buildApp } from '../../services/chain-adapter/src/app.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ElectrumIndexer, IndexerUnavailableError } from '../../services/chain-adapter/src/indexer.js';
import { startIndexer } from '../../services/indexer/src/indexer.js';
import type { EsploraTx, EsploraUtxo, Outspend, TxStatus } from '../../services/chain-adapter/src/esplora/types.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { freshKey, runEntryPoint, startAdapter, waitIndexed, type RunningAdapter } from './support.js';

const MAINNET = 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4';

describe('chain-data adapter over real btcd and the lab indexer', () => {
  let regtest: Regtest;
  let adapter: RunningAdapter;
  const receiver = freshKey();
  let fundingTxid: string;
  let minedHash: string;

  const request = (path: string, init?: RequestInit) => fetch(`${adapter.url}${path}`, init);
  const mine = async () => {
    const [hash] = await regtest.chain.mine(1, freshKey().address);
    await waitIndexed(adapter, regtest);
    return hash!;
  };

  beforeAll(async () => {
    regtest = await startRegtest();
    adapter = await startAdapter(regtest);
    await waitIndexed(adapter, regtest);
  });
  afterAll(async () => {
    await adapter?.close();
    await regtest?.stop();
  });

  it('recommends integer fees in sat/vB on every fee path, falling back to 20 sat/vB, with the relay minimum a day out', async () => {
    const recommended = await adapter.get<Record<string, number>>('/api/v1/fees/recommended');
    expect(await adapter.get('/api/fees')).toEqual(recommended);
    expect(await adapter.get('/api/fees/recommended')).toEqual(recommended);
    // btcd on a fresh regtest chain has no estimate of its own (it answers 20 sat/vB), and none past 25 blocks.
    expect(recommended).toEqual({ fastestFee: 20, halfHourFee: 20, hourFee: 20, economyFee: 1, minimumFee: 1 });
    const estimates = await adapter.get<Record<string, number>>('/api/fee-estimates');
    expect(estimates).toMatchObject({ 6: 20, 25: 20, 144: 1, 1008: 1 });
  });

  it('shows an unconfirmed payment in the mempool views', async () => {
    fundingTxid = await regtest.session.labWallet.send([{ address: receiver.address, amountSat: 250_000n }]);
    const mempool = await waitFor(
      async () => {
        const txs = await adapter.get<EsploraTx[]>(`/api/address/${receiver.address}/txs/mempool`);
        return txs.length === 1 && txs;
      },
      { timeoutMs: 20_000, what: 'the payment in the indexer mempool' },
    );
    expect(mempool[0]).toMatchObject({ txid: fundingTxid, status: { confirmed: false } });
    expect(mempool[0]!.fee).toBeGreaterThan(0);
    const utxos = await adapter.get<EsploraUtxo[]>(`/api/address/${receiver.address}/utxo`);
    expect(utxos).toEqual([
      { txid: fundingTxid, vout: expect.any(Number), value: 250_000, status: { confirmed: false } },
    ]);
    const summary = await adapter.get<{ mempool_stats: Record<string, number>; chain_stats: Record<string, number> }>(
      `/api/address/${receiver.address}`,
    );
    expect(summary).toEqual({
      address: receiver.address,
      chain_stats: { funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 },
      mempool_stats: {
        funded_txo_count: 1,
        funded_txo_sum: 250_000,
        spent_txo_count: 0,
        spent_txo_sum: 0,
        tx_count: 1,
      },
    });
    expect(await adapter.get<TxStatus>(`/api/tx/${fundingTxid}/status`)).toEqual({ confirmed: false });
  });

  it('shows it confirmed, with block height, hash and time, once a block is mined', async () => {
    minedHash = await mine();
    const height = await regtest.chain.getBlockCount();
    const summary = await regtest.chain.getBlockSummary(minedHash);
    const status = { confirmed: true, block_height: height, block_hash: minedHash, block_time: summary.time };
    const utxos = await adapter.get<EsploraUtxo[]>(`/api/address/${receiver.address}/utxo`);
    expect(utxos).toEqual([{ txid: fundingTxid, vout: expect.any(Number), value: 250_000, status }]);
    expect(await adapter.get(`/api/tx/${fundingTxid}/status`)).toEqual(status);
    const [tx] = await adapter.get<EsploraTx[]>(`/api/address/${receiver.address}/txs`);
    expect(tx).toMatchObject({ txid: fundingTxid, version: expect.any(Number), locktime: expect.any(Number), status });
    expect(tx!.size).toBeGreaterThan(0);
    expect(tx!.weight).toBeGreaterThanOrEqual(tx!.size);
    // Every input names what it spent; value in = value out + fee.
    const inputs = tx!.vin.reduce((sum, input) => sum + input.prevout!.value, 0);
    const outputs = tx!.vout.reduce((sum, output) => sum + output.value, 0);
    expect(inputs - outputs).toBe(tx!.fee);
    expect(tx!.vin[0]!.prevout).toMatchObject({
      scriptpubkey_type: 'v0_p2wpkh',
      scriptpubkey_address: regtest.session.labWallet.address,
    });
    const paid = tx!.vout.find((output) => output.scriptpubkey_address === receiver.address);
    expect(paid).toMatchObject({
      value: 250_000,
      scriptpubkey_type: 'v0_p2wpkh',
      scriptpubkey: Buffer.from(receiver.outputScript).toString('hex'),
    });
    expect(paid!.scriptpubkey_asm).toMatch(/^OP_0 OP_PUSHBYTES_20 [0-9a-f]{40}$/);
    expect(await adapter.get(`/api/tx/${fundingTxid}`)).toEqual(tx);
    expect(await adapter.get(`/api/tx/${fundingTxid}/hex`)).toBe(await regtest.chain.getRawTransactionHex(fundingTxid));
    expect(await adapter.get(`/api/address/${receiver.address}/txs/mempool`)).toEqual([]);
    expect((await adapter.get<{ chain_stats: unknown }>(`/api/address/${receiver.address}`)).chain_stats).toEqual({
      funded_txo_count: 1,
      funded_txo_sum: 250_000,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 1,
    });
  });

  it('answers the same for the Esplora script hash (plain sha256 of the script) as for the address', async () => {
    const { sha256 } = await import('@noble/hashes/sha2.js');
    const scripthash = Buffer.from(sha256(receiver.outputScript)).toString('hex');
    expect(await adapter.get(`/api/scripthash/${scripthash}/utxo`)).toEqual(
      await adapter.get(`/api/address/${receiver.address}/utxo`),
    );
    expect(await adapter.get(`/api/scripthash/${scripthash}/txs`)).toEqual(
      await adapter.get(`/api/address/${receiver.address}/txs`),
    );
    expect(await adapter.get(`/api/scripthash/${scripthash}`)).toMatchObject({
      scripthash,
      chain_stats: { funded_txo_sum: 250_000 },
    });
  });

  it('serves the block reads wallets sync with', async () => {
    const height = await regtest.chain.getBlockCount();
    expect(await adapter.get('/api/blocks/tip/height')).toBe(String(height));
    expect(await adapter.get('/api/blocks/tip/hash')).toBe(await regtest.chain.getBestBlockHash());
    expect(await adapter.get(`/api/block-height/${height}`)).toBe(minedHash);
    expect(await adapter.get(`/api/block/${minedHash}/header`)).toBe(await regtest.chain.getBlockHeaderHex(minedHash));
    expect((await request(`/api/block-height/${height + 1000}`)).status).toBe(404);

    const summary = await regtest.chain.getBlockSummary(minedHash);
    const block = await adapter.get<Record<string, unknown>>(`/api/block/${minedHash}`);
    expect(block).toMatchObject({
      id: minedHash,
      height,
      tx_count: summary.txids.length,
      timestamp: summary.time,
      previousblockhash: summary.previousBlockHash,
      bits: 0x207fffff,
    });
    expect(block.mediantime).toBeLessThanOrEqual(summary.time);
    expect(block.difficulty).toBeCloseTo(4.656542373906925e-10, 20);
    expect(await adapter.get(`/api/block/${await regtest.chain.getBlockHash(0)}`)).toMatchObject({
      height: 0,
      previousblockhash: null,
      mediantime: 1296688602,
    });
    const raw = await request(`/api/block/${minedHash}/raw`);
    expect(Buffer.from(await raw.arrayBuffer()).toString('hex')).toBe(await regtest.chain.getBlockHex(minedHash));
    expect(block.size).toBe((await regtest.chain.getBlockHex(minedHash)).length / 2);
    expect(await adapter.get(`/api/block/${minedHash}/status`)).toEqual({ in_best_chain: true, height });
    expect(await adapter.get(`/api/block/${summary.previousBlockHash}/status`)).toEqual({
      in_best_chain: true,
      height: height - 1,
      next_best: minedHash,
    });
    expect((await request(`/api/block/${'00'.repeat(32)}/status`)).status).toBe(404);
    const blocks = await adapter.get<{ id: string; height: number }[]>('/api/blocks');
    expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: 10 }, (_, i) => height - i));
    expect(blocks[0]!.id).toBe(minedHash);
    expect((await adapter.get<{ height: number }[]>('/api/blocks/5')).map((b) => b.height)).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it('gives a Merkle proof and per-output spend status of a confirmed transaction', async () => {
    const proof = await adapter.get<{ block_height: number; merkle: string[]; pos: number }>(
      `/api/tx/${fundingTxid}/merkle-proof`,
    );
    const { block_height: height } = await adapter.get<TxStatus>(`/api/tx/${fundingTxid}/status`);
    expect(proof.block_height).toBe(height);
    const txids = (await regtest.chain.getBlockSummary(minedHash)).txids;
    expect(txids[proof.pos]).toBe(fundingTxid);
    expect(proof.merkle).toHaveLength(Math.ceil(Math.log2(txids.length)));
    const tx = await adapter.get<EsploraTx>(`/api/tx/${fundingTxid}`);
    const paid = tx.vout.findIndex((output) => output.scriptpubkey_address === receiver.address);
    expect(await adapter.get(`/api/tx/${fundingTxid}/outspend/${paid}`)).toEqual({ spent: false });
    expect((await request(`/api/tx/${fundingTxid}/outspend/${tx.vout.length}`)).status).toBe(404);
  });

  it('broadcasts a raw transaction from a text body, and returns the node reason when it is rejected', async () => {
    const utxo = (await adapter.get<EsploraUtxo[]>(`/api/address/${receiver.address}/utxo`))[0]!;
    const next = freshKey();
    const psbt = new Psbt({ network: networks.regtest });
    psbt.addInput({
      hash: utxo.txid,
      index: utxo.vout,
      witnessUtxo: { script: receiver.outputScript, value: BigInt(utxo.value) },
    });
    psbt.addOutput({ address: next.address, value: 240_000n });
    psbt.signAllInputs(receiver.signer);
    psbt.finalizeAllInputs();
    const hex = psbt.extractTransaction().toHex();

    // btcd would take the transaction and ignore what follows it; Bitcoin Core refuses that, and so does the adapter
    const trailing = await request('/api/tx', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: `${hex}00`,
    });
    expect(trailing.status).toBe(400);
    expect(await trailing.json()).toEqual({
      error: {
        code: 'INVALID_TX_HEX',
        message: expect.stringMatching(
          /one raw transaction .* has 1 byte after the \d+-byte transaction: send the transaction alone/,
        ),
      },
    });
    expect(await regtest.chain.getRawMempool()).not.toContain(psbt.extractTransaction().getId());

    // Like BDK's client: no Content-Type header at all.
    const sent = await request('/api/tx', { method: 'POST', body: new Blob([hex]) });
    expect(sent.status).toBe(200);
    const txid = await sent.text();
    expect(txid).toBe(psbt.extractTransaction().getId());

    const again = await request('/api/tx', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: hex });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({
      error: { code: 'TX_REJECTED', message: expect.stringMatching(/the node rejected the transaction: .*already/i) },
    });

    const garbage = await request('/api/tx', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'not hex',
    });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).error.code).toBe('INVALID_TX_HEX');
    const broken = await request('/api/tx', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '0200000000',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error).toMatchObject({
      code: 'INVALID_TX_HEX',
      message: expect.stringMatching(/is not a serialized transaction/),
    });

    await waitFor(
      async () => (await adapter.get<EsploraTx[]>(`/api/address/${receiver.address}/txs/mempool`)).length === 1,
      { timeoutMs: 20_000, what: 'the spend in the mempool' },
    );
    const pending = await adapter.get<{ mempool_stats: unknown }>(`/api/address/${receiver.address}`);
    expect(pending.mempool_stats).toEqual({
      funded_txo_count: 0,
      funded_txo_sum: 0,
      spent_txo_count: 1,
      spent_txo_sum: 250_000,
      tx_count: 1,
    });
    expect(await adapter.get<Outspend[]>(`/api/tx/${fundingTxid}/outspends`)).toContainEqual({
      spent: true,
      txid,
      vin: 0,
      status: { confirmed: false },
    });
    expect(await adapter.get(`/api/tx/${fundingTxid}/outspend/${utxo.vout}`)).toEqual({
      spent: true,
      txid,
      vin: 0,
      status: { confirmed: false },
    });
    const unconfirmedProof = await request(`/api/tx/${txid}/merkle-proof`);
    expect(unconfirmedProof.status).toBe(404);
    expect((await unconfirmedProof.json()).error.message).toMatch(/not confirmed yet/);
    expect(await adapter.get(`/api/address/${receiver.address}/utxo`)).toEqual([]);
  });

  it('pages confirmed history 25 at a time, newest first', async () => {
    const busy = freshKey();
    const txids: string[] = [];
    for (let i = 0; i < 27; i++)
      txids.push(await regtest.session.labWallet.send([{ address: busy.address, amountSat: BigInt(10_000 + i) }]));
    await mine();
    await waitFor(
      async () => (await adapter.get<EsploraTx[]>(`/api/address/${busy.address}/txs/chain`)).length === 25,
      { timeoutMs: 20_000, what: '25 confirmed txs' },
    );
    const first = await adapter.get<EsploraTx[]>(`/api/address/${busy.address}/txs`);
    expect(first).toHaveLength(25);
    const second = await adapter.get<EsploraTx[]>(`/api/address/${busy.address}/txs/chain/${first.at(-1)!.txid}`);
    expect(second).toHaveLength(2);
    expect(new Set([...first, ...second].map((tx) => tx.txid))).toEqual(new Set(txids));
    // All in one block: newest first means the reverse of the order within the block.
    const blockOrder = (await regtest.chain.getBlockSummary(first[0]!.status.block_hash!)).txids.filter((txid) =>
      txids.includes(txid),
    );
    expect([...first, ...second].map((tx) => tx.txid)).toEqual(blockOrder.reverse());
    const unknown = await request(`/api/address/${busy.address}/txs/chain/${'00'.repeat(32)}`);
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.code).toBe('UNKNOWN_LAST_SEEN');
  });

  it('refuses addresses of other networks and bad checksums with 400 saying why', async () => {
    const cases: [string, RegExp][] = [
      [MAINNET, /mainnet address .*bcrt1/],
      ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', /testnet\/signet/],
      [receiver.address.slice(0, -1) + (receiver.address.endsWith('q') ? 'p' : 'q'), /bad bech32 checksum/],
      ['1BoatSLRHtKNngkdXEeobR3y8jqsD8tw6q', /checksum|mainnet/],
      ['hello', /not a Bitcoin address/],
    ];
    for (const [address, reason] of cases) {
      for (const suffix of ['', '/utxo', '/txs']) {
        const response = await request(`/api/address/${address}${suffix}`);
        expect(response.status, `${address}${suffix}`).toBe(400);
        const body = await response.json();
        expect(body.error.code).toBe('INVALID_ADDRESS');
        expect(body.error.message).toMatch(reason);
      }
    }
    expect((await request(`/api/tx/${'zz'.repeat(32)}`)).status).toBe(400);
    const missing = await request(`/api/tx/${'ab'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('NOT_FOUND');
  });

  it('is browser-safe: CORS preflight and headers, JSON errors, an OpenAPI document', async () => {
    const preflight = await request('/api/tx', {
      method: 'OPTIONS',
      headers: { origin: 'http://wallet.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBeLessThan(300);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://wallet.example');
    const read = await request(`/api/address/${receiver.address}/utxo`, {
      headers: { origin: 'http://wallet.example' },
    });
    expect(read.headers.get('access-control-allow-origin')).toBe('http://wallet.example');
    const unknownRoute = await request('/api/nothing-here');
    expect(unknownRoute.status).toBe(404);
    expect((await unknownRoute.json()).error.code).toBe('NOT_FOUND');
    const openapi = await adapter.get<{ paths: Record<string, unknown> }>('/openapi.json');
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/fees/recommended',
        '/api/fees',
        '/api/address/{address}/utxo',
        '/api/tx',
        '/api/health',
      ]),
    );
  });

  it('reports node and indexer health, and 503 naming the indexer when it is down', async () => {
    expect(await adapter.get('/api/health')).toMatchObject({
      status: 'ok',
      network: 'regtest',
      node: { ok: true },
      indexer: { ok: true },
      indexer_lag_blocks: 0,
    });
    const driver = createChainDriver(regtest.chainRpc);
    const deadIndexer = new ElectrumIndexer({ host: '127.0.0.1', port: 1, protocol: 'tcp' });
    const app = await buildApp({ network: 'regtest', driver, indexer: deadIndexer });
    try {
      const health = await app.inject({ method: 'GET', url: '/api/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({
        status: 'degraded',
        node: { ok: true },
        indexer: { ok: false, error: expect.stringMatching(/cannot reach the indexer/) },
      });
      const utxo = await app.inject({ method: 'GET', url: `/api/address/${receiver.address}/utxo` });
      expect(utxo.statusCode).toBe(503);
      expect(utxo.json().error.code).toBe('INDEXER_UNAVAILABLE');
    } finally {
      await app.close();
      deadIndexer.close();
      driver.close();
    }
  });

  it('runs from its entry point with the environment the lab gives it, logs JSON and stops on SIGTERM', async () => {
    const service = await runEntryPoint(
      'services/chain-adapter/src/main.ts',
      { ...regtest.chainEnv, INDEXER_URL: adapter.indexerUrl, NETWORK: 'regtest' },
      '/api/health',
    );
    const utxos = await (await fetch(`${service.url}/api/address/${receiver.address}/txs`)).json();
    expect(utxos).toEqual(await adapter.get(`/api/address/${receiver.address}/txs`));
    expect(await service.stop()).toBe(0);
    const logs = service
      .output()
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(logs.some((line) => line.msg === 'request completed' && line.res?.statusCode === 200)).toBe(true);
  });

  it('reconnects to the indexer after it restarts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'reglab-adapter-restart-'));
    const config = {
      host: '127.0.0.1',
      port: 0,
      dataDir,
      chain: regtest.chainRpc,
      pollMs: 100,
      logLevel: 'warn' as const,
      banner: 'test',
    };
    let server = await startIndexer(config);
    const client = new ElectrumIndexer({ host: '127.0.0.1', port: server.port, protocol: 'tcp' }, 2_000);
    try {
      const height = await regtest.chain.getBlockCount();
      expect(await client.tipHeight()).toBe(height);
      await server.close();
      await expect(client.tipHeight()).rejects.toBeInstanceOf(IndexerUnavailableError);
      server = await startIndexer({ ...config, port: server.port });
      expect(await client.tipHeight()).toBe(height);
    } finally {
      client.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('answers a block a reorg replaced as not in the best chain, as Esplora does', async () => {
    const replacedHash = await mine();
    const replacedHeight = await regtest.chain.getBlockCount();
    expect(await adapter.get(`/api/block/${replacedHash}/status`)).toEqual({
      in_best_chain: true,
      height: replacedHeight,
    });
    // what `reglab reorg 1` does: two blocks on top of the one before it, and btcd switches to them
    await reorg(regtest.session, 1);
    const tip = await regtest.chain.getBestBlockHash();
    await waitIndexed(adapter, regtest);
    expect(await adapter.get('/api/blocks/tip/hash')).toBe(tip);
    expect(await adapter.get(`/api/block/${replacedHash}/status`)).toEqual({ in_best_chain: false });
    const newAtHeight = await regtest.chain.getBlockHash(replacedHeight);
    expect(await adapter.get(`/api/block/${newAtHeight}/status`)).toEqual({
      in_best_chain: true,
      height: replacedHeight,
      next_best: tip,
    });
  });
});
