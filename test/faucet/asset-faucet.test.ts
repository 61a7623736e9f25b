// The asset faucet in a lab, as the lab runs it (lab.yaml's services.faucet.asset): it pays one of
// the lab's RGB assets from an rgb node to invoices of an rgb-lib wallet the test makes itself (not
// a lab node), mines through the lab's queue, and keeps the cool-downs; bad invoices change nothing.
// Its own lab: an rgb node and an asset faucet, which the default lab has not.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRgbKeys } from '../../lib/rgb/keys.js';
import type { ReceiveData } from '../../lib/rgb/types.js';
import { RgbWallet } from '../../lib/rgb/wallet.js';
import { waitFor } from '../../lib/wait.js';
import type { ErrorBody } from '../../lib/http/errors.js';
import type { AssetClaimResult } from '../../services/faucet/src/asset-faucet.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { chromiumForSuite } from '../support/chromium.js';

const COOLDOWN_SECONDS = 4;
const CLAIM = 50;
const SUPPLY = 1000;
const LAB = `name: assetfaucet
nodes:
  - { name: alice, funding_sat: 2000000 }
  - { name: issuer, kind: rgb, funding_sat: 1000000 }
  - { name: sink, kind: rgb, funding_sat: 1000000 }
assets:
  - { ticker: LAB, name: Lab coin, supply: ${SUPPLY}, issuer: issuer }
services:
  faucet:
    node: alice
    cooldown_seconds: ${COOLDOWN_SECONDS}
    asset: { ticker: LAB, amount: ${CLAIM}, node: issuer }
`;

interface Answer {
  status: number;
  body: Partial<AssetClaimResult> & Partial<ErrorBody>;
}

describe('asset faucet in a lab: RGB assets to an rgb-lib wallet of its own', () => {
  let cp: TestControlPlane;
  let faucetUrl: string;
  let proxyEndpoint: string;
  let assetId: string;
  let wallet: RgbWallet;
  let walletDir: string;
  /** When the last paid claim's cool-down of this client's IP is over. */
  let ipFreeAt = 0;

  const claim = async (invoice: unknown): Promise<Answer> => {
    const response = await fetch(`${faucetUrl}/api/claim-asset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invoice }),
    });
    const answer = { status: response.status, body: await response.json() };
    if (answer.status === 200) ipFreeAt = Date.now() + COOLDOWN_SECONDS * 1000;
    return answer;
  };
  const faucetStatus = async () => (await (await fetch(`${faucetUrl}/api/status`)).json()).asset;
  const labHeight = async () => (await cp.call('GET', '/labs/assetfaucet')).body.chain.height as number;
  /** Every claim comes from this test's one IP: the next paid claim waits out the last one's cool-down. */
  const ipCooldownOver = () =>
    waitFor(async () => Date.now() > ipFreeAt, {
      timeoutMs: (COOLDOWN_SECONDS + 5) * 1000,
      intervalMs: 100,
      what: "the IP's cool-down to end",
    });
  const invoiceFor = (
    options: { witness?: boolean; amount?: number; assetId?: string; expiresAt?: number } = {},
  ): Promise<ReceiveData> => {
    const request = {
      assetId: options.assetId,
      assignment: options.amount === undefined ? ('Any' as const) : { Fungible: options.amount },
      transportEndpoints: [proxyEndpoint],
      expirationTimestamp: options.expiresAt,
    };
    return options.witness ? wallet.witnessReceive(request) : wallet.blindReceive(request);
  };
  /** Refreshes the wallet until it holds `settled` of the faucet's asset. */
  const walletSettles = (settled: number) =>
    waitFor(
      async () => {
        await wallet.refresh();
        return (await wallet.assetBalance(assetId).catch(() => undefined))?.settled === settled;
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `the wallet to hold ${settled} LAB settled` },
    );

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, LAB, 'assetfaucet');
    const { body: lab } = await cp.call('GET', '/labs/assetfaucet');
    const service = (name: string) => lab.services.find((candidate: { name: string }) => candidate.name === name);
    faucetUrl = service('faucet').info.url.replace(/\/$/, '');
    proxyEndpoint = service('rgb-proxy').info.endpoint;
    assetId = (await cp.call('GET', '/labs/assetfaucet/assets')).body.assets.find(
      (asset: { ticker: string }) => asset.ticker === 'LAB',
    ).assetId;

    walletDir = mkdtempSync(join(tmpdir(), 'reglab-faucet-wallet-'));
    wallet = await RgbWallet.open({ dataDir: walletDir, keys: await generateRgbKeys() });
    await wallet.goOnline(service('indexer').info.electrum);
    const funded = await cp.call('POST', '/labs/assetfaucet/fund?wait=true', {
      address: await wallet.address(),
      amount_sat: 500_000,
    });
    expect(funded.body.state).toBe('completed');
    await waitFor(async () => (await wallet.btcBalance()).vanilla.settled === 500_000, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the wallet to see its funding',
    });
    // colored UTXOs: one per blinded invoice, one for an asset of the wallet's own
    await wallet.createUtxos({ num: 4 });
    await cp.call('POST', '/labs/assetfaucet/mine?wait=true', { blocks: 1 });
    await waitFor(async () => (await wallet.btcBalance()).colored.settled > 0, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the colored UTXOs to confirm',
    });
  });
  afterAll(async () => {
    await wallet?.close();
    await cp?.stop();
    if (walletDir) rmSync(walletDir, { recursive: true, force: true });
  });

  it("shows the asset it gives and its node's balance of it", async () => {
    expect(await faucetStatus()).toEqual({
      ticker: 'LAB',
      asset_id: assetId,
      claim_amount: CLAIM,
      balance: { settled: SUPPLY, future: SUPPLY, spendable: SUPPLY },
    });
  });

  it('refuses bad invoices with 400 saying why, taking no cool-down and moving nothing', async () => {
    const heightBefore = await labHeight();
    const other = await wallet.issueNia({ ticker: 'OTHER', name: 'Not the faucet coin', precision: 0, amounts: [10] });
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const expiring = await invoiceFor({ witness: true, expiresAt });
    const refusals: [unknown, string, RegExp][] = [
      ['not an invoice', 'INVALID_INVOICE', /not an RGB invoice the faucet can read/],
      [
        (await invoiceFor({ witness: true, assetId: other.assetId })).invoice,
        'WRONG_ASSET',
        new RegExp(`asks for asset ${other.assetId}; this faucet gives LAB \\(${assetId}\\)`),
      ],
      [
        (await invoiceFor({ witness: true, amount: CLAIM + 1 })).invoice,
        'AMOUNT_TOO_HIGH',
        /asks for 51 LAB; this faucet gives at most 50 per claim/,
      ],
      [42, 'BAD_REQUEST', /invoice must be string/],
    ];
    for (const [invoice, code, message] of refusals) {
      const answer = await claim(invoice);
      expect(answer.status, String(invoice)).toBe(400);
      expect(answer.body.error).toMatchObject({ code, message: expect.stringMatching(message) });
    }
    await waitFor(async () => Date.now() > expiresAt * 1000, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the invoice to expire',
    });
    expect((await claim(expiring.invoice)).body.error).toMatchObject({
      code: 'INVOICE_EXPIRED',
      message: expect.stringMatching(/the invoice expired at .*; make a new one/),
    });
    const extra = await fetch(`${faucetUrl}/api/claim-asset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ invoice: expiring.invoice, amount: 5 }),
    });
    expect(extra.status).toBe(400);
    expect(await labHeight()).toBe(heightBefore);
    expect((await faucetStatus()).balance.settled).toBe(SUPPLY);
  });

  it('pays a blinded invoice: one block through the lab queue, the wallet settles the amount; the cool-down refuses a second claim', async () => {
    const invoice = await invoiceFor();
    const heightBefore = await labHeight();
    // this client's first paid claim: the refusals above took no cool-down of its IP
    const paid = await claim(invoice.invoice);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toEqual({
      txid: expect.stringMatching(/^[0-9a-f]{64}$/),
      asset_id: assetId,
      ticker: 'LAB',
      amount: CLAIM,
      recipient_id: invoice.recipientId,
      block_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      block_height: heightBefore + 1,
    });
    expect(await labHeight()).toBe(heightBefore + 1);
    // the faucet's side is settled when it answers; the wallet's on its own refresh
    expect((await faucetStatus()).balance).toEqual({
      settled: SUPPLY - CLAIM,
      future: SUPPLY - CLAIM,
      spendable: SUPPLY - CLAIM,
    });
    await walletSettles(CLAIM);
    const received = (await wallet.listTransfers(assetId)).find(
      (transfer) => transfer.recipientId === invoice.recipientId,
    );
    expect(received).toMatchObject({
      kind: 'ReceiveBlind',
      status: 'Settled',
      txid: paid.body.txid,
      assignments: [{ Fungible: CLAIM }],
    });

    const again = await claim(invoice.invoice);
    expect(again.status).toBe(429);
    expect(again.body.error).toMatchObject({
      code: 'COOLDOWN',
      blocked_by: ['ip', 'recipient'],
      message: expect.stringMatching(
        new RegExp(
          `your IP .* and invoice recipient ${invoice.recipientId} claimed less than ${COOLDOWN_SECONDS} seconds ago`,
        ),
      ),
    });
    const fresh = await claim((await invoiceFor({ witness: true })).invoice);
    expect(fresh.status).toBe(429);
    expect(fresh.body.error).toMatchObject({ code: 'COOLDOWN', blocked_by: ['ip'] });
    expect((await faucetStatus()).balance.settled).toBe(SUPPLY - CLAIM);
  });

  it('pays a witness invoice the amount it names', async () => {
    await ipCooldownOver();
    const invoice = await invoiceFor({ witness: true, amount: 20 });
    const paid = await claim(invoice.invoice);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ amount: 20, recipient_id: invoice.recipientId, ticker: 'LAB' });
    await walletSettles(CLAIM + 20);
    const received = (await wallet.listTransfers(assetId)).find(
      (transfer) => transfer.recipientId === invoice.recipientId,
    );
    expect(received).toMatchObject({
      kind: 'ReceiveWitness',
      status: 'Settled',
      txid: paid.body.txid,
      assignments: [{ Fungible: 20 }],
    });
    expect((await faucetStatus()).balance.settled).toBe(SUPPLY - CLAIM - 20);
  });

  describe('web page in headless Chromium', () => {
    const browser = chromiumForSuite();

    it('claims the asset with the second form, shows the result, then the cool-down', async () => {
      await ipCooldownOver();
      const page = await browser.newPage();
      await page.goto(faucetUrl);
      await page.locator('#asset-status', { hasText: `Sends ${CLAIM} LAB per claim` }).waitFor();
      expect(await page.locator('#asset-title').textContent()).toBe('RGB asset LAB');
      const invoice = await invoiceFor();
      await page.fill('#invoice', invoice.invoice);
      await page.click('#claim-asset');
      const result = page.locator('#asset-result');
      await result.waitFor({ state: 'visible', timeout: 60_000 });
      ipFreeAt = Date.now() + COOLDOWN_SECONDS * 1000;
      expect(await result.textContent()).toContain(`Sent ${CLAIM} LAB to recipient ${invoice.recipientId}`);
      expect(await result.getAttribute('data-txid')).toMatch(/^[0-9a-f]{64}$/);
      // the bitcoin form's boxes stay as they were
      expect(await page.locator('#result').isHidden()).toBe(true);
      await walletSettles(2 * CLAIM + 20);

      await page.click('#claim-asset');
      const error = page.locator('#asset-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toMatch(
        new RegExp(
          `^This invoice and your IP claimed less than ${COOLDOWN_SECONDS} seconds ago\\. Cool-down: 0:0\\d left\\.$`,
        ),
      );
      expect(await result.isHidden()).toBe(true);

      await page.fill('#invoice', 'rgb:nonsense');
      await page.click('#claim-asset');
      await page.locator('#asset-error', { hasText: 'not an RGB invoice' }).waitFor();
      await page.close();
    });
  });

  it('believes X-Forwarded-For from this machine (a reverse proxy on it) for the per-IP cool-down of BTC claims', async () => {
    const claimBtc = async (forwardedFor: string) => {
      const response = await fetch(`${faucetUrl}/api/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({
          address: payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address,
        }),
      });
      return { status: response.status, body: await response.json() };
    };
    expect((await claimBtc('198.51.100.7')).status).toBe(200);
    expect((await claimBtc('198.51.100.8')).status).toBe(200);
    const again = await claimBtc('198.51.100.7');
    expect(again.status).toBe(429);
    expect(again.body.error).toMatchObject({ code: 'COOLDOWN', blocked_by: ['ip'] });
    expect(again.body.error.message).toContain('your IP 198.51.100.7');
  });

  it("answers 502 SEND_FAILED when the lab's consignment proxy is down, not blaming the invoice; keeps no cool-down, and pays once it is back", async () => {
    await ipCooldownOver();
    const invoice = await invoiceFor();
    const heightBefore = await labHeight();
    const balanceBefore = (await faucetStatus()).balance;
    expect((await cp.call('POST', '/labs/assetfaucet/services/rgb-proxy/stop')).body).toMatchObject({
      status: 'stopped',
    });
    try {
      const answer = await claim(invoice.invoice);
      expect(answer.status).toBe(502);
      expect(answer.body.error).toEqual({
        code: 'SEND_FAILED',
        message: `the faucet's node cannot reach the consignment proxy the invoice names (${proxyEndpoint}): it is down, or out of the node's reach. Your invoice is not at fault: nothing was sent and your cool-down is released; claim again once the proxy answers (reglab status shows the lab's)`,
      });
      expect(await labHeight()).toBe(heightBefore);
      expect((await faucetStatus()).balance).toEqual(balanceBefore);
    } finally {
      expect((await cp.call('POST', '/labs/assetfaucet/services/rgb-proxy/start')).body).toMatchObject({
        status: 'ready',
      });
    }
    // the same IP and the same recipient: no cool-down was kept
    const paid = await claim(invoice.invoice);
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body).toMatchObject({ recipient_id: invoice.recipientId, amount: CLAIM });
    expect((await faucetStatus()).balance.settled).toBe(balanceBefore.settled - CLAIM);
  });

  it('answers 503 when its node cannot pay a claim, and frees the cool-down it took', async () => {
    const held = (await faucetStatus()).balance.settled as number;
    const sent = await cp.call('POST', '/labs/assetfaucet/assets/send?wait=true', {
      from: 'issuer',
      to: 'sink',
      asset: 'LAB',
      amount: held - 10,
    });
    expect(sent.body.state, JSON.stringify(sent.body)).toBe('completed');
    expect((await faucetStatus()).balance.spendable).toBe(10);
    await ipCooldownOver();
    const invoice = await invoiceFor({ witness: true });
    const heightBefore = await labHeight();
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await claim(invoice.invoice);
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({
        code: 'FAUCET_EMPTY',
        message:
          "the asset faucet is empty: its node can spend 10 LAB and this claim takes 50. Send LAB to the faucet's node and try again",
      });
    }
    expect(await labHeight()).toBe(heightBefore);
    expect((await faucetStatus()).balance.settled).toBe(10);
  });
});
