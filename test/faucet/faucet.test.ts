// Its own lab of btcd and one lnd node: the faucets it checks run in the test, on that node's
// wallet.
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transaction } from 'bitcoinjs-lib';
import { Redis } from 'ioredis';
import { createChainAddress, getChainBalance, getPendingChainBalance, sendToChainAddress } from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EsploraTx, EsploraUtxo } from '../../services/chain-adapter/src/esplora/types.js';
import { buildApp } from '../../services/faucet/src/app.js';
import { Cooldowns } from '../../services/faucet/src/cooldown.js';
import { Faucet } from '../../services/faucet/src/faucet.js';
import { DirectMiner, LabQueueMiner, type Miner } from '../../services/faucet/src/miner.js';
import { buildControlPlaneApp } from '../../control-plane/src/api/app.js';
import { JobQueues } from '../../control-plane/src/jobs.js';
import type { LabManager } from '../../control-plane/src/manager.js';
import { NodeWallet } from '../../services/faucet/src/wallet.js';
import { lightningClient } from '../../lib/lightning/implementations.js';
import { freshKey, runEntryPoint, startAdapter, waitIndexed, type RunningAdapter } from '../chain-adapter/support.js';
import { startRedis, type RunningServer } from '../support/infra.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { waitFor } from '../../lib/wait.js';
import { chromiumForSuite } from '../support/chromium.js';

const CLAIM_SAT = 100_000;
const COOLDOWN_SECONDS = 900;

interface ClaimAnswer {
  status: number;
  retryAfter: string | null;
  body: {
    txid?: string;
    amount_sat?: number;
    address?: string;
    block_hash?: string;
    block_height?: number;
    error?: { code: string; message: string; retry_after_seconds?: number; blocked_by?: string[]; txid?: string };
  };
}

describe('faucet against real btcd, lnd and Redis', () => {
  let regtest: Regtest;
  let redisServer: RunningServer;
  let redis: Redis;
  let adapter: RunningAdapter;
  let faucetUrl: string;
  let close: () => Promise<void>;
  let wallet: NodeWallet;
  let miner: DirectMiner;
  let ipCounter = 0;
  const nextIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

  const claim = async (address: unknown, ip = nextIp(), url = faucetUrl): Promise<ClaimAnswer> => {
    const response = await fetch(`${url}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ address }),
    });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() };
  };

  const startFaucet = async (claimSat: number, store: Redis, using: Miner = miner) => {
    const faucet = new Faucet({
      wallet,
      miner: using,
      cooldowns: new Cooldowns(store, COOLDOWN_SECONDS),
      driver: regtest.chain,
      claimSat,
      adapterUrl: adapter.url,
    });
    // The tests play many clients from one host: believe X-Forwarded-For (TRUST_PROXY=true).
    const app = await buildApp({ faucet, trustProxy: true });
    return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
  };

  beforeAll(async () => {
    regtest = await startRegtest({ lnd: ['alice'] });
    redisServer = await startRedis();
    redis = new Redis(redisServer.url);
    adapter = await startAdapter(regtest);
    wallet = new NodeWallet(lightningClient('lnd', regtest.lndCredentials('alice')));
    miner = new DirectMiner(regtest.chain, () => wallet.ownAddress());
    const { app, url } = await startFaucet(CLAIM_SAT, redis);
    faucetUrl = url;
    close = () => app.close();
  });
  afterAll(async () => {
    await close?.();
    await adapter?.close();
    redis?.disconnect();
    await redisServer?.stop();
    await regtest?.stop();
  });

  it('reports its status', async () => {
    const response = await fetch(`${faucetUrl}/api/status`);
    expect(response.status).toBe(200);
    const status = await response.json();
    expect(status).toEqual({
      network: 'regtest',
      balance_sat: expect.any(Number),
      pending_balance_sat: expect.any(Number),
      claim_amount_sat: CLAIM_SAT,
      cooldown_seconds: COOLDOWN_SECONDS,
      height: await regtest.chain.getBlockCount(),
      mining: 'direct',
      adapter_url: adapter.url,
      asset: null,
    });
    expect(status.balance_sat).toBeGreaterThan(30 * CLAIM_SAT);
  });

  it("reports lnd's wallet balances as lnd counts them over all its accounts, confirmed and unconfirmed", async () => {
    const lnd = regtest.lnd('alice');
    const { address } = await createChainAddress({ lnd, format: 'p2wpkh' });
    await sendToChainAddress({ lnd, address, tokens: 50_000, utxo_confirmations: 0 });
    const unconfirmed = await (await fetch(`${faucetUrl}/api/status`)).json();
    expect(unconfirmed.pending_balance_sat).toBeGreaterThan(0);
    expect([unconfirmed.balance_sat, unconfirmed.pending_balance_sat]).toEqual([
      (await getChainBalance({ lnd })).chain_balance,
      (await getPendingChainBalance({ lnd })).pending_chain_balance,
    ]);
    await miner.mineOne();
    const status = async () => (await fetch(`${faucetUrl}/api/status`)).json();
    await waitFor(async () => (await status()).pending_balance_sat === 0, {
      timeoutMs: 20_000,
      what: 'lnd to see its payment to itself confirmed',
    });
    const confirmed = await status();
    expect([confirmed.balance_sat, confirmed.pending_balance_sat]).toEqual([
      (await getChainBalance({ lnd })).chain_balance,
      (await getPendingChainBalance({ lnd })).pending_chain_balance,
    ]);
  });

  it('answers asset claims with 404 when it gives no asset', async () => {
    const response = await fetch(`${faucetUrl}/api/claim-asset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invoice: 'rgb:anything' }),
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatchObject({
      code: 'NO_ASSET_OFFERED',
      message: expect.stringMatching(/gives no RGB asset.*services\.faucet\.asset/),
    });
  });

  it('sends the claim amount, mines one block that confirms it, and the adapter shows it', async () => {
    const receiver = freshKey();
    const heightBefore = await regtest.chain.getBlockCount();
    const answer = await claim(receiver.address);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      txid: expect.stringMatching(/^[0-9a-f]{64}$/),
      amount_sat: CLAIM_SAT,
      address: receiver.address,
      block_hash: expect.any(String),
      block_height: heightBefore + 1,
    });
    const block = await regtest.chain.getBlockSummary(answer.body.block_hash!);
    expect(block.height).toBe(heightBefore + 1);
    expect(block.txids).toContain(answer.body.txid);
    await waitIndexed(adapter, regtest);
    const utxos = await adapter.get<EsploraUtxo[]>(`/api/address/${receiver.address}/utxo`);
    expect(utxos).toEqual([
      {
        txid: answer.body.txid,
        vout: expect.any(Number),
        value: CLAIM_SAT,
        status: expect.objectContaining({ confirmed: true, block_height: heightBefore + 1, block_hash: block.hash }),
      },
    ]);
  });

  it('refuses a second claim within the cool-down, per address and per IP, with the time left', async () => {
    const first = freshKey().address;
    const ip = nextIp();
    const claimed = Date.now();
    expect((await claim(first, ip)).status).toBe(200);

    const sameAddress = await claim(first);
    expect(sameAddress.status).toBe(429);
    expect(sameAddress.body.error).toMatchObject({
      code: 'COOLDOWN',
      blocked_by: ['address'],
      message: expect.stringMatching(/claimed less than 15 minutes ago; try again in \d+ s/),
    });
    // what is left of the cool-down since the claim, however long the calls took
    expect(sameAddress.body.error!.retry_after_seconds).toBeGreaterThanOrEqual(
      COOLDOWN_SECONDS - Math.ceil((Date.now() - claimed) / 1000),
    );
    expect(sameAddress.body.error!.retry_after_seconds).toBeLessThanOrEqual(COOLDOWN_SECONDS);
    expect(Number(sameAddress.retryAfter)).toBe(sameAddress.body.error!.retry_after_seconds);

    const sameIp = await claim(freshKey().address, ip);
    expect(sameIp.status).toBe(429);
    expect(sameIp.body.error).toMatchObject({ code: 'COOLDOWN', blocked_by: ['ip'] });
  });

  it('pays exactly one of many simultaneous claims for one address (hammering)', async () => {
    const target = freshKey().address;
    const answers = await Promise.all(Array.from({ length: 15 }, () => claim(target)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(14);
    // And 15 claims from one IP to different addresses: again one.
    const ip = nextIp();
    const fromOneIp = await Promise.all(Array.from({ length: 15 }, () => claim(freshKey().address, ip)));
    expect(fromOneIp.map((answer) => answer.status).sort()).toEqual([200, ...Array(14).fill(429)]);
  });

  it('refuses anything but a regtest bech32/bech32m address with 400 saying why', async () => {
    const receiver = freshKey().address;
    const cases: [unknown, RegExp][] = [
      ['bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', /mainnet address/],
      ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', /testnet\/signet address/],
      ['mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn', /base58 address; the faucet pays regtest bech32\/bech32m addresses only/],
      [receiver.slice(0, -1) + (receiver.endsWith('q') ? 'p' : 'q'), /bad bech32 checksum/],
      ['not an address', /not a Bitcoin address/],
      ['', /must NOT have fewer than 1 characters/],
      [{ address: 'nested' }, /must be string/],
    ];
    for (const [address, reason] of cases) {
      const answer = await claim(address);
      expect(answer.status, String(address)).toBe(400);
      expect(answer.body.error!.message).toMatch(reason);
    }
    const noBody = await fetch(`${faucetUrl}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(noBody.status).toBe(400);
    expect((await noBody.json()).error.message).toMatch(/address/);
    // A refused address sets no cool-down: the same client can claim right after.
    const ip = nextIp();
    expect((await claim('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4', ip)).status).toBe(400);
    expect((await claim(freshKey().address, ip)).status).toBe(200);
  });

  it('takes the claim body strictly (no coercion, no extra fields) and answers GET /api/claim with 405', async () => {
    const receiver = freshKey().address;
    const ip = nextIp();
    const post = (body: unknown) =>
      fetch(`${faucetUrl}/api/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: JSON.stringify(body),
      });
    for (const body of [
      { address: 123 },
      { address: true },
      { address: [receiver] },
      { address: null },
      { address: receiver, amount_sat: 1 },
    ]) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect((await response.json()).error, JSON.stringify(body)).toMatchObject({
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/address|additional properties/),
      });
    }
    // None of them took the cool-down of the address or of the IP.
    expect((await post({ address: receiver })).status).toBe(200);

    const get = await fetch(`${faucetUrl}/api/claim`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await get.json()).error).toMatchObject({
      code: 'METHOD_NOT_ALLOWED',
      message: expect.stringMatching(/use POST/),
    });
  });

  it('pays twenty simultaneous claims to different addresses without spending any input twice', async () => {
    const receivers = Array.from({ length: 20 }, () => freshKey().address);
    const heightBefore = await regtest.chain.getBlockCount();
    const answers = await Promise.all(receivers.map((address) => claim(address)));
    // One block mined per claim; each answer names the block that holds its transaction.
    expect(await regtest.chain.getBlockCount()).toBe(heightBefore + 20);
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const txids = answers.map((answer) => answer.body.txid!);
    expect(new Set(txids).size).toBe(20);
    const spent = new Set<string>();
    let inputs = 0;
    for (const answer of answers) {
      const tx = Transaction.fromHex(await regtest.chain.getRawTransactionHex(answer.body.txid!));
      for (const input of tx.ins) {
        spent.add(`${Buffer.from(input.hash).reverse().toString('hex')}:${input.index}`);
        inputs++;
      }
      const block = await regtest.chain.getBlockSummary(answer.body.block_hash!);
      expect(block.txids).toContain(answer.body.txid);
    }
    expect(spent.size).toBe(inputs);
    await waitIndexed(adapter, regtest);
    for (const [i, address] of receivers.entries()) {
      const utxos = await adapter.get<EsploraUtxo[]>(`/api/address/${address}/utxo`);
      expect(utxos).toEqual([
        expect.objectContaining({
          txid: txids[i],
          value: CLAIM_SAT,
          status: expect.objectContaining({ confirmed: true }),
        }),
      ]);
    }
  });

  it('answers 503 when the wallet cannot pay, and frees the cool-down it took', async () => {
    const rich = await startFaucet(100_000_000_000_000, redis);
    try {
      const address = freshKey().address;
      const ip = nextIp();
      const first = await claim(address, ip, rich.url);
      expect(first.status).toBe(503);
      expect(first.body.error).toMatchObject({
        code: 'FAUCET_EMPTY',
        message: expect.stringMatching(/the faucet is empty/),
      });
      const again = await claim(address, ip, rich.url);
      expect(again.status).toBe(503);
    } finally {
      await rich.app.close();
    }
  });

  it('answers 502 on /api/status when lnd cannot be reached', async () => {
    const { freePort } = await import('../../control-plane/src/util/ports.js');
    const unreachable = new NodeWallet(
      lightningClient('lnd', { ...regtest.lndCredentials('alice'), socket: `127.0.0.1:${await freePort()}` }),
    );
    const faucet = new Faucet({
      wallet: unreachable,
      miner,
      cooldowns: new Cooldowns(redis, COOLDOWN_SECONDS),
      driver: regtest.chain,
      claimSat: CLAIM_SAT,
    });
    const app = await buildApp({ faucet });
    try {
      const response = await app.inject({ method: 'GET', url: '/api/status' });
      expect(response.statusCode).toBe(502);
      expect(response.json().error).toMatchObject({
        code: 'DEPENDENCY_FAILED',
        message: expect.stringMatching(/cannot read its wallet or the chain/),
      });
    } finally {
      await app.close();
    }
  });

  it('answers 502 with the txid when mining fails after sending, and keeps the cool-down', async () => {
    const broken: Miner = { kind: 'direct', mineOne: () => Promise.reject(new Error('no block today')) };
    const faucet = await startFaucet(CLAIM_SAT, redis, broken);
    try {
      const address = freshKey().address;
      const answer = await claim(address, nextIp(), faucet.url);
      expect(answer.status).toBe(502);
      expect(answer.body.error).toMatchObject({
        code: 'MINE_FAILED',
        txid: expect.stringMatching(/^[0-9a-f]{64}$/),
        message: expect.stringMatching(/no block today.*confirms with the next block/),
      });
      expect(await regtest.chain.getRawMempool()).toContain(answer.body.error!.txid);
      expect((await claim(address, nextIp(), faucet.url)).status).toBe(429);
    } finally {
      await faucet.app.close();
    }
  });

  it('answers 503 and pays nothing while Redis is unreachable', async () => {
    const offline = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    offline.on('error', () => undefined);
    const faucet = await startFaucet(CLAIM_SAT, offline);
    try {
      const balance = await wallet.balance();
      const answer = await claim(freshKey().address, nextIp(), faucet.url);
      expect(answer.status).toBe(503);
      expect(answer.body.error!.code).toBe('COOLDOWN_STORE_UNAVAILABLE');
      expect((await wallet.balance()).confirmedSat).toBe(balance.confirmedSat);
    } finally {
      await faucet.app.close();
      offline.disconnect();
    }
  });

  it("mines through the lab's queue when given the control plane's mine endpoint (MINE_URL)", async () => {
    // The real control-plane API and BullMQ queues; only the lab manager is reduced to this one lab.
    const jobs = new JobQueues(
      async () => redisServer.url,
      () => regtest.session,
      () => undefined,
    );
    // its state folder holds nothing here: the API's snapshot routes only need to know where it is
    const manager = {
      session: () => regtest.session,
      home: join(tmpdir(), 'reglab-faucet-test-home'),
      events: new EventEmitter(),
      list: () => [],
    } as unknown as LabManager;
    const controlPlane = await buildControlPlaneApp({ manager, jobs, shutdown: () => undefined });
    const controlPlaneUrl = await controlPlane.listen({ host: '127.0.0.1', port: 0 });
    const queued = await startFaucet(
      CLAIM_SAT,
      redis,
      new LabQueueMiner({ mineUrl: `${controlPlaneUrl}/labs/test/mine`, pollMs: 50 }, regtest.chain),
    );
    try {
      expect((await (await fetch(`${queued.url}/api/status`)).json()).mining).toBe('lab-queue');
      const heightBefore = await regtest.chain.getBlockCount();
      const answers = await Promise.all([
        claim(freshKey().address, nextIp(), queued.url),
        claim(freshKey().address, nextIp(), queued.url),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(await regtest.chain.getBlockCount()).toBe(heightBefore + 2);
      for (const answer of answers)
        expect((await regtest.chain.getBlockSummary(answer.body.block_hash!)).txids).toContain(answer.body.txid);
    } finally {
      await queued.app.close();
      await controlPlane.close();
      await jobs.close();
    }
  });

  it('runs from its entry point with the lab env; without TRUST_PROXY the client IP is the TCP peer', async () => {
    const service = await runEntryPoint(
      'services/faucet/src/main.ts',
      {
        ...regtest.chainEnv,
        ...regtest.lndEnv('alice'),
        REDIS_URL: `${redisServer.url}/3`,
        NETWORK: 'regtest',
        CLAIM_SAT: '50000',
        COOLDOWN_SECONDS: '60',
        ADAPTER_PUBLIC_URL: adapter.url,
      },
      '/api/status',
    );
    try {
      expect(await (await fetch(`${service.url}/api/status`)).json()).toMatchObject({
        claim_amount_sat: 50_000,
        cooldown_seconds: 60,
        mining: 'direct',
        adapter_url: adapter.url,
      });
      const first = await claim(freshKey().address, '10.200.0.1', service.url);
      expect(first.status).toBe(200);
      expect(first.body.amount_sat).toBe(50_000);
      // A forged X-Forwarded-For does not give the same client a new IP.
      const second = await claim(freshKey().address, '10.200.0.2', service.url);
      expect(second.status).toBe(429);
      expect(second.body.error).toMatchObject({ blocked_by: ['ip'], message: expect.stringContaining('127.0.0.1') });
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  describe('web page in headless Chromium', () => {
    const browser = chromiumForSuite();

    it('claims to a fresh address, shows the result with a link to the adapter, then the cool-down', async () => {
      const receiver = freshKey().address;
      const page = await browser.newPage();
      await page.goto(faucetUrl);
      await page.locator('#status', { hasText: 'Balance' }).waitFor();
      await page.fill('#address', receiver);
      await page.click('#claim');
      const result = page.locator('#result');
      await result.waitFor({ state: 'visible', timeout: 60_000 });
      const txid = await result.getAttribute('data-txid');
      expect(txid).toMatch(/^[0-9a-f]{64}$/);
      expect(await result.textContent()).toContain(`Sent 0.001 BTC (100000 sat) to ${receiver}`);
      expect(await result.locator(`a[href="${adapter.url}/api/tx/${txid}"]`).count()).toBe(1);

      // The adapter shows the payment confirmed.
      await waitIndexed(adapter, regtest);
      const utxos = await adapter.get<EsploraUtxo[]>(`/api/address/${receiver}/utxo`);
      expect(utxos).toEqual([
        expect.objectContaining({ txid, value: CLAIM_SAT, status: expect.objectContaining({ confirmed: true }) }),
      ]);
      expect(await adapter.get(`/api/address/${receiver}`)).toMatchObject({
        address: receiver,
        chain_stats: { funded_txo_count: 1, funded_txo_sum: CLAIM_SAT, tx_count: 1 },
      });
      const txs = await adapter.get<EsploraTx[]>(`/api/address/${receiver}/txs`);
      expect(txs.map((tx) => [tx.txid, tx.status.confirmed])).toEqual([[txid, true]]);
      // The link the page shows opens in the browser (the adapter allows any origin).
      const linked = await page.evaluate(async (url) => (await fetch(url)).json(), `${adapter.url}/api/tx/${txid}`);
      expect(linked).toMatchObject({ txid, status: { confirmed: true } });

      await page.click('#claim');
      const error = page.locator('#error');
      await error.waitFor({ state: 'visible' });
      // one text, counting down: not the server's fixed "try again in 900 s" beside it
      expect(await error.textContent()).toMatch(
        /^This address and your IP claimed less than 15 minutes ago\. Cool-down: 1[45]:\d\d left\.$/,
      );
      expect(await result.isHidden()).toBe(true);

      await page.fill('#address', 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
      await page.click('#claim');
      await page.locator('#error', { hasText: 'mainnet address' }).waitFor();
      await page.close();
    });

    it('clears the previous error as soon as a new claim starts', async () => {
      const page = await browser.newPage({ extraHTTPHeaders: { 'x-forwarded-for': nextIp() } });
      await page.goto(faucetUrl);
      await page.fill('#address', 'not an address');
      await page.click('#claim');
      await page.locator('#error', { hasText: 'not a Bitcoin address' }).waitFor();
      let errorShownDuringClaim: boolean | undefined;
      await page.route('**/api/claim', async (route) => {
        errorShownDuringClaim = await page.locator('#error').isVisible();
        await route.continue();
      });
      await page.fill('#address', freshKey().address);
      await page.click('#claim');
      await page.locator('#result').waitFor({ state: 'visible', timeout: 60_000 });
      expect(errorShownDuringClaim).toBe(false);
      expect(await page.locator('#error').isHidden()).toBe(true);
      await page.close();
    });

    it('on a phone-wide screen breaks no word mid-word (only txids, hashes and addresses), and has a favicon', async () => {
      const page = await browser.newPage({
        viewport: { width: 360, height: 740 },
        extraHTTPHeaders: { 'x-forwarded-for': nextIp() },
      });
      const failed: string[] = [];
      page.on('response', (response) => {
        // the page's own resources (the 429 of the second claim below is meant)
        if (response.status() >= 400 && !response.url().endsWith('/api/claim'))
          failed.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(faucetUrl);
      await page.locator('#status', { hasText: 'Balance' }).waitFor();
      /** Words of ordinary text inside `selector` that the layout split over two lines. */
      const splitWords = (selector: string) =>
        page.evaluate((sel) => {
          const split: string[] = [];
          const walker = document.createTreeWalker(document.querySelector(sel)!, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            if (node.parentElement?.closest('.id')) continue;
            // a line may end after a hyphen (Cool-|down), as in any text; a word must not break elsewhere
            for (const word of node.textContent!.matchAll(/[^\s-]+/g)) {
              const range = document.createRange();
              range.setStart(node, word.index!);
              range.setEnd(node, word.index! + word[0].length);
              if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1)
                split.push(word[0]);
            }
          }
          return split;
        }, selector);

      const receiver = freshKey().address;
      await page.fill('#address', receiver);
      await page.click('#claim');
      await page.locator('#result').waitFor({ state: 'visible', timeout: 60_000 });
      expect(await page.locator('#result').evaluate((box) => box.scrollWidth <= box.clientWidth)).toBe(true);
      expect(await splitWords('#result')).toEqual([]);
      await page.click('#claim');
      await page.locator('#error', { hasText: 'Cool-down' }).waitFor();
      // it does wrap
      expect(await page.locator('#error').evaluate((box) => box.getClientRects()[0]!.height > 40)).toBe(true);
      expect(await splitWords('#error')).toEqual([]);
      expect(await splitWords('#status')).toEqual([]);
      await page.screenshot({ path: join(tmpdir(), 'reglab-faucet-phone.png'), fullPage: true });

      const icon = await page.locator('link[rel="icon"]').getAttribute('href');
      const served = await page.evaluate(async (href) => {
        const response = await fetch(href);
        return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
      }, icon!);
      expect(served).toMatchObject({ status: 200, type: 'image/svg+xml', body: expect.stringContaining('<svg') });
      expect(failed).toEqual([]);
      await page.close();
    });
  });
});
