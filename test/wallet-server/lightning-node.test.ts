// The Lightning side of the wallet server against real btcd and real nodes, once on each node kind:
// the server runs on alice (lnd, then LDK), bob is an lnd node outside the server with a channel
// from alice.
// Its own labs: one per node kind (lnd, LDK) the server runs on, with funds on bob's side of the
// channel.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  createHodlInvoice,
  createInvoice,
  decodePaymentRequest,
  getInvoice,
  getInvoices,
  getWalletInfo,
  pay,
  settleHodlInvoice,
} from 'ln-service';
import { freePort } from '../../control-plane/src/util/ports.js';
import type { Regtest } from '../support/regtest.js';
import { as, createWallet, enrollAndSignIn, fund, newKey, type TestUser } from './support.js';
import {
  describeOnEachNodeKind,
  eventually,
  lightningApp,
  serverNode,
  serverNodeEnv,
  startServerLab,
  type LightningApp,
} from './lightning-support.js';

describeOnEachNodeKind((kind, infra) => {
  let regtest: Regtest;
  let server: LightningApp;
  let user: TestUser;
  let nodeEnv: Record<string, string>;
  const adminKey = newKey();
  // The user is an admin (for /admin/node-health); one token secret for every app of this file.
  const env = { ADMIN_PUBKEYS: adminKey.pubkey, TOKEN_SECRET: randomBytes(32).toString('hex') };

  beforeAll(async () => {
    regtest = await startServerLab(kind, { capacity_sat: 5_000_000, push_sat: 2_000_000 });
    nodeEnv = serverNodeEnv(regtest);
    server = await lightningApp(infra(), await serverNode(nodeEnv), { env });
    user = await enrollAndSignIn(server.app, adminKey);
  });

  afterAll(async () => {
    await server?.app.close();
    await regtest?.stop();
  });

  const bob = () => regtest.lnd('bob');
  const alice = () => regtest.session.lightning('alice');
  const call = (walletId: string) => as(server.app, user.accessToken, walletId);

  async function balance(walletId: string): Promise<bigint> {
    return server.app.ledger.btcBalanceMsat(walletId);
  }

  async function newInvoice(walletId: string, amountMsat: number, extra: Record<string, unknown> = {}) {
    const res = await call(walletId)({
      method: 'POST',
      url: '/payments/invoices',
      payload: { amount_msat: amountMsat, ...extra },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { payment_request: string; payment_hash: string; expires_at: string; payment: { id: string } };
  }

  async function ledgerEntries(paymentId: string): Promise<number> {
    const { rows } = await server.app.db.query<{ n: string }>(
      'select count(*)::text as n from ledger_entries where payment_id = $1',
      [paymentId],
    );
    return Number(rows[0]!.n);
  }

  describe('receiving', () => {
    test('bob pays a wallet invoice on alice: the wallet is credited exactly once', async () => {
      const w = await createWallet(server.app, user.accessToken, 'receive');
      const asked = Date.now();
      const inv = await newInvoice(w, 10_000_000);
      expect(inv.payment_request.startsWith('lnbcrt100u')).toBe(true);
      // Default expiry: one hour after it was made (in whole seconds), while the call ran.
      expect(new Date(inv.expires_at).getTime()).toBeGreaterThanOrEqual(asked - 1_000 + 3600_000);
      expect(new Date(inv.expires_at).getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);

      await pay({ lnd: bob(), request: inv.payment_request });
      const paid = await eventually(async () => {
        const r = await call(w)({ url: `/payments/invoices/${inv.payment_hash}` });
        const body = r.json() as { status: string; preimage: string | null };
        return body.status === 'succeeded' && body;
      }, 'the invoice to settle');
      expect(paid.preimage).toMatch(/^[0-9a-f]{64}$/);
      // The stream and two GET refreshes all saw it settled: still one credit.
      await server.app.inject({
        url: `/payments/invoices/${inv.payment_hash}`,
        headers: { authorization: `Bearer ${user.accessToken}`, 'x-service-wallet-key': w },
      });
      expect(await balance(w)).toBe(10_000_000n);
      expect(await ledgerEntries(inv.payment.id)).toBe(1);
    });

    test('invoice rules: expiry above 7 days, assets on lnd, unknown hash', async () => {
      const w = await createWallet(server.app, user.accessToken, 'rules');
      const tooLong = await call(w)({
        method: 'POST',
        url: '/payments/invoices',
        payload: { amount_msat: 1000, expiry_sec: 7 * 24 * 3600 + 1 },
      });
      expect(tooLong.statusCode).toBe(400);
      const asked = Date.now();
      const week = await newInvoice(w, 1000, { expiry_sec: 7 * 24 * 3600 });
      expect(new Date(week.expires_at).getTime()).toBeGreaterThanOrEqual(asked - 1_000 + 7 * 24 * 3600_000);
      const asset = await call(w)({
        method: 'POST',
        url: '/payments/invoices',
        payload: { amount_msat: 3_000_000, asset_id: 'rgb:abc', asset_amount: 5 },
      });
      expect(asset.statusCode).toBe(400);
      expect(asset.json().error).toMatchObject({
        code: 'ASSETS_NEED_RGB_NODE',
        message: expect.stringContaining(`this server runs on ${kind}`),
      });
      const unknown = await call(w)({ url: `/payments/invoices/${'ab'.repeat(32)}` });
      expect(unknown.statusCode).toBe(404);
      const malformed = await call(w)({ url: '/payments/invoices/xyz' });
      expect(malformed.statusCode).toBe(400);
    });

    test("an amount the node refuses is a 400 with the node's reason; an unreachable node is a 502", async () => {
      const w = await createWallet(server.app, user.accessToken, 'refused');
      const huge = await call(w)({
        method: 'POST',
        url: '/payments/invoices',
        payload: { amount_msat: '9223372036854775807' },
      });
      expect(huge.statusCode, huge.body).toBe(400);
      expect(huge.json().error.code).toBe('NODE_REJECTED');
      expect(huge.json().error.message).toMatch(new RegExp(`^${kind} refused the invoice: .+`));
      expect((await as(server.app, user.accessToken)({ url: `/wallets/${w}/transactions` })).json().items).toEqual([]);

      const nowhere = `127.0.0.1:${await freePort()}`;
      const down = await lightningApp(
        infra(),
        await serverNode({ ...nodeEnv, LND_GRPC_HOST: nowhere, LDK_URL: `http://${nowhere}` }),
        { databaseUrl: server.databaseUrl, env },
      );
      try {
        const w2 = await createWallet(down.app, user.accessToken, 'node-down');
        const res = await as(
          down.app,
          user.accessToken,
          w2,
        )({ method: 'POST', url: '/payments/invoices', payload: { amount_msat: 1000 } });
        expect(res.statusCode, res.body).toBe(502);
        expect(res.json().error.code).toBe('DEPENDENCY_UNAVAILABLE');
      } finally {
        await down.app.close();
      }
    });
    test('an invoice the node expires becomes failed, with no credit', async () => {
      const w = await createWallet(server.app, user.accessToken, 'expiring');
      const inv = await newInvoice(w, 1_000, { expiry_sec: 1 });
      const failed = await eventually(async () => {
        const r = (await call(w)({ url: `/payments/invoices/${inv.payment_hash}` })).json();
        return r.status === 'failed' && r;
      }, 'the node to cancel the expired invoice');
      expect(failed.error).toMatch(/expired or was cancelled/);
      expect(await balance(w)).toBe(0n);
    });
  });

  describe('paying out', () => {
    test('pays an invoice of bob: amount charged, unused fee limit refunded', async () => {
      const w = await createWallet(server.app, user.accessToken, 'payer');
      await fund(server.app, w, 20_000_000n);
      const { request, id } = await createInvoice({ lnd: bob(), tokens: 5_000 });
      const res = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: request } });
      expect(res.statusCode, res.body).toBe(200);
      const p = res.json() as { status: string; fee_msat: string; amount_msat: string; preimage: string; id: string };
      expect(p.status).toBe('succeeded');
      expect(p.amount_msat).toBe('5000000');
      expect(createHash('sha256').update(Buffer.from(p.preimage, 'hex')).digest('hex')).toBe(id);
      expect(await balance(w)).toBe(20_000_000n - 5_000_000n - BigInt(p.fee_msat));
      expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
      // Paying it again is refused before the node is asked.
      const again = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: request } });
      expect(again.statusCode).toBe(400);
      expect(again.json().error.code).toBe('ALREADY_PAYING');
    });

    test('refuses invoices without an amount, of another network, or unpayable (refunded)', async () => {
      const w = await createWallet(server.app, user.accessToken, 'refusals');
      await fund(server.app, w, 5_000_000n);
      const noAmount = await createInvoice({ lnd: bob() });
      const r1 = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: noAmount.request } });
      expect(r1.json().error.code).toBe('AMOUNT_REQUIRED');
      // BOLT11 spec test vector (mainnet).
      const mainnet =
        'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp';
      const r2 = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: mainnet } });
      expect(r2.statusCode).toBe(400);
      expect(r2.json().error.code).toBe('WRONG_NETWORK');
      // More than alice's channel can carry: the node fails it, the reservation comes back.
      const big = await createInvoice({ lnd: bob(), tokens: 4_000_000 });
      await fund(server.app, w, 4_100_000_000n);
      const r3 = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: big.request } });
      expect(r3.statusCode, r3.body).toBe(200);
      expect(r3.json().status).toBe('failed');
      expect(await balance(w)).toBe(4_105_000_000n);
    });

    test('keysend to bob; keysend to the own node is refused', async () => {
      const w = await createWallet(server.app, user.accessToken, 'keysend');
      await fund(server.app, w, 10_000_000n);
      const bobKey = (await getWalletInfo({ lnd: bob() })).public_key;
      const res = await call(w)({
        method: 'POST',
        url: '/payments/keysend',
        payload: { dest_pubkey: bobKey, amount_msat: 2_000_000 },
      });
      expect(res.statusCode, res.body).toBe(200);
      const p = res.json() as { status: string; fee_msat: string; payment_hash: string; kind: string };
      expect(p.status).toBe('succeeded');
      expect(p.kind).toBe('keysend');
      expect(await balance(w)).toBe(8_000_000n - BigInt(p.fee_msat));
      const received = (await getInvoices({ lnd: bob() })).invoices.find((i) => i.id === p.payment_hash);
      expect(received?.is_confirmed).toBe(true);

      const aliceKey = (await alice().info()).pubkey;
      const self = await call(w)({
        method: 'POST',
        url: '/payments/keysend',
        payload: { dest_pubkey: aliceKey, amount_msat: 1000 },
      });
      expect(self.statusCode).toBe(400);
      expect(self.json().error.code).toBe('KEYSEND_TO_SELF');

      // 02ff..ff has the form of a key but is no point on the curve: refused before anything is recorded
      const offCurve = await call(w)({
        method: 'POST',
        url: '/payments/keysend',
        payload: { dest_pubkey: `02${'f'.repeat(64)}`, amount_msat: 1000 },
      });
      expect(offCurve.statusCode).toBe(400);
      expect(offCurve.json().error.code).toBe('INVALID_PUBKEY');
      const recorded = (await as(server.app, user.accessToken)({ url: `/wallets/${w}/transactions` })).json().items as {
        kind: string;
      }[];
      expect(recorded.filter((p) => p.kind === 'keysend')).toHaveLength(1);
    });

    test('an invoice of another wallet here is paid internally; the own wallet invoice is refused', async () => {
      const payer = await createWallet(server.app, user.accessToken, 'internal-payer');
      const payee = await createWallet(server.app, user.accessToken, 'internal-payee');
      await fund(server.app, payer, 3_000_000n);
      const inv = await newInvoice(payee, 1_500_000);
      const own = await call(payee)({
        method: 'POST',
        url: '/payments/pay',
        payload: { invoice: inv.payment_request },
      });
      expect(own.statusCode).toBe(400);
      expect(own.json().error.code).toBe('SELF_PAYMENT');
      const res = await call(payer)({
        method: 'POST',
        url: '/payments/pay',
        payload: { invoice: inv.payment_request },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'succeeded', fee_msat: '0', counterparty_wallet_id: payee });
      expect(await balance(payer)).toBe(1_500_000n);
      expect(await balance(payee)).toBe(1_500_000n);
      // The node invoice is cancelled right after (off the request path) so nobody pays it from outside.
      await eventually(
        async () => (await alice().invoice(inv.payment_hash))?.state === 'canceled',
        'the node invoice to be cancelled',
      );
      // Paid from outside after that, it is refused: nothing reaches the node, nothing is credited twice.
      // refused by alice as an invoice it no longer takes, not lost on the way (a route, a timeout)
      await expect(pay({ lnd: bob(), request: inv.payment_request })).rejects.toEqual([
        503,
        'PaymentRejectedByDestination',
      ]);
      expect(await balance(payee)).toBe(1_500_000n);
      const twice = await call(payer)({
        method: 'POST',
        url: '/payments/pay',
        payload: { invoice: inv.payment_request },
      });
      expect(twice.statusCode).toBe(400);
    });

    test('a payment the node has not finished answers pending, and settles in the background', async () => {
      const slow = await lightningApp(infra(), await serverNode(nodeEnv), {
        databaseUrl: server.databaseUrl,
        env: { ...env, PAY_WAIT_MS: '300' },
      });
      try {
        const w = await createWallet(slow.app, user.accessToken, 'slow');
        await fund(slow.app, w, 5_000_000n);
        const secret = randomBytes(32).toString('hex');
        const id = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
        const { request } = await createHodlInvoice({ lnd: bob(), id, tokens: 2_000 });
        const res = await as(
          slow.app,
          user.accessToken,
          w,
        )({ method: 'POST', url: '/payments/pay', payload: { invoice: request } });
        expect(res.json()).toMatchObject({ status: 'pending', amount_msat: '2000000' });
        expect(await slow.app.ledger.btcBalanceMsat(w)).toBe(5_000_000n - 2_000_000n - 20_000n);
        await eventually(async () => (await getInvoice({ lnd: bob(), id })).is_held, 'bob to hold the HTLC');
        await settleHodlInvoice({ lnd: bob(), secret });
        const done = await eventually(async () => {
          const p = (await as(slow.app, user.accessToken, w)({ url: `/payments/invoices/${id}` })).json();
          return p.status === 'succeeded' && p;
        }, 'the payment to settle');
        expect(done.preimage).toBe(secret);
        expect(await slow.app.ledger.btcBalanceMsat(w)).toBe(3_000_000n - BigInt(done.fee_msat));
      } finally {
        await slow.app.close();
      }
    });

    test('50 concurrent pays from a wallet funded for 5: exactly 5 succeed', async () => {
      const w = await createWallet(server.app, user.accessToken, 'concurrent');
      const amount = 1_000_000n;
      const feeLimit = 10_000n; // max(1%, 10 sat) of 1000 sat
      await fund(server.app, w, 5n * (amount + feeLimit));
      const invoices = await Promise.all(
        Array.from({ length: 50 }, () => createInvoice({ lnd: bob(), tokens: 1_000 })),
      );
      const results = await Promise.all(
        invoices.map((i) => call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: i.request } })),
      );
      const ok = results.filter((r) => r.statusCode === 200);
      expect(ok.map((r) => r.json().status)).toEqual(Array(5).fill('succeeded'));
      const refused = results.filter((r) => r.statusCode === 400).map((r) => r.json().error.code);
      expect(refused).toEqual(Array(45).fill('INSUFFICIENT_FUNDS'));
      const fees = ok.reduce((s, r) => s + BigInt(r.json().fee_msat), 0n);
      expect(await balance(w)).toBe(5n * feeLimit - fees);
      const paidOnBob = (await Promise.all(invoices.map((i) => getInvoice({ lnd: bob(), id: i.id })))).filter(
        (i) => i.is_confirmed,
      );
      expect(paidOnBob).toHaveLength(5);
    });
  });

  describe('lightning address', () => {
    test('LNURL-pay: bob pays a username; description hash commits to the metadata; unknown username 404', async () => {
      const w = await createWallet(server.app, user.accessToken, 'lnurlp');
      const claim = await as(
        server.app,
        user.accessToken,
      )({ method: 'PUT', url: `/wallets/${w}/lightning-address`, payload: { username: 'carol' } });
      expect(claim.statusCode, claim.body).toBe(200);
      expect(claim.json()).toMatchObject({ lightning_address: 'carol@wallet.test', lnurlw_url: null });

      const params = (await server.app.inject({ url: '/.well-known/lnurlp/carol' })).json();
      expect(params).toMatchObject({
        tag: 'payRequest',
        callback: 'http://wallet.test/lnurlp/carol/callback',
        minSendable: 1000,
      });
      expect(JSON.parse(params.metadata)).toEqual([
        ['text/plain', 'Payment to carol@wallet.test'],
        ['text/identifier', 'carol@wallet.test'],
      ]);

      const cb = await server.app.inject({ url: '/lnurlp/carol/callback?amount=21000000' });
      expect(cb.statusCode).toBe(200);
      const { pr, routes } = cb.json();
      expect(routes).toEqual([]);
      const decoded = await decodePaymentRequest({ lnd: bob(), request: pr });
      expect(decoded.description_hash).toBe(createHash('sha256').update(params.metadata, 'utf8').digest('hex'));
      expect(decoded.mtokens).toBe('21000000');
      await pay({ lnd: bob(), request: pr });
      await eventually(async () => (await balance(w)) === 21_000_000n, 'the LNURL-pay credit');

      // LUD-06: every refusal of an LNURL route is {status: "ERROR", reason} (HTTP errors carry reglab's error too)
      const lud06Error = {
        status: 'ERROR',
        reason: expect.stringMatching(/.+/),
        error: { code: expect.any(String), message: expect.any(String) },
      };
      for (const amount of ['10', '-1', 'abc', '1.5', '', '99999999999999999999']) {
        const res = await server.app.inject({ url: `/lnurlp/carol/callback?amount=${amount}` });
        expect(res.statusCode, amount).toBe(400);
        expect(res.json(), amount).toEqual({
          ...lud06Error,
          error: { code: 'INVALID_AMOUNT', message: expect.stringMatching(/between 1000 and 10000000000/) },
        });
      }
      const missing = await server.app.inject({ url: '/lnurlp/carol/callback' });
      expect([missing.statusCode, missing.json()]).toEqual([400, lud06Error]);
      for (const url of [
        '/.well-known/lnurlp/nobody',
        '/lnurlp/nobody/callback?amount=1000',
        '/lnurlw/nobody',
        '/lnurlw/carol',
      ]) {
        const res = await server.app.inject({ url });
        expect(res.statusCode, url).toBe(404);
        expect(res.json(), url).toEqual(lud06Error);
      }
      // Another wallet cannot take the name.
      const other = await createWallet(server.app, user.accessToken, 'other');
      const taken = await as(
        server.app,
        user.accessToken,
      )({ method: 'PUT', url: `/wallets/${other}/lightning-address`, payload: { username: 'carol' } });
      expect(taken.statusCode).toBe(409);
    });

    test('LNURL-withdraw: one-time k1, per-withdraw max and total budget; only where enabled', async () => {
      const w = await createWallet(server.app, user.accessToken, 'lnurlw');
      await fund(server.app, w, 100_000_000n);
      const put = (payload: Record<string, unknown>) =>
        as(server.app, user.accessToken)({ method: 'PUT', url: `/wallets/${w}/lightning-address`, payload });
      expect((await put({ username: 'dave' })).statusCode).toBe(200);
      expect((await server.app.inject({ url: '/lnurlw/dave' })).statusCode).toBe(404);

      const enabled = await put({
        username: 'dave',
        withdraw: { enabled: true, max_msat_per_withdraw: 50_000_000, budget_msat: 60_000_000 },
      });
      expect(enabled.json().lnurlw_url).toBe('http://wallet.test/lnurlw/dave');
      const offer = (await server.app.inject({ url: '/lnurlw/dave' })).json();
      expect(offer).toMatchObject({
        tag: 'withdrawRequest',
        callback: 'http://wallet.test/lnurlw/dave/callback',
        minWithdrawable: 1000,
        maxWithdrawable: 50_000_000,
      });
      expect(offer.k1).toMatch(/^[0-9a-f]{64}$/);

      const inv = await createInvoice({ lnd: bob(), tokens: 30_000 });
      const ok = await server.app.inject({ url: `/lnurlw/dave/callback?k1=${offer.k1}&pr=${inv.request}` });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ status: 'OK' });
      expect((await getInvoice({ lnd: bob(), id: inv.id })).is_confirmed).toBe(true);
      expect(await balance(w)).toBeLessThanOrEqual(70_000_000n);

      const reuse = await server.app.inject({
        url: `/lnurlw/dave/callback?k1=${offer.k1}&pr=${(await createInvoice({ lnd: bob(), tokens: 1_000 })).request}`,
      });
      expect(reuse.statusCode).toBe(200);
      expect(reuse.json().status).toBe('ERROR');

      // 30,000 sat of 60,000 spent: the offer shrinks, and 40,000 sat does not fit.
      const second = (await server.app.inject({ url: '/lnurlw/dave' })).json();
      expect(second.maxWithdrawable).toBe(30_000_000);
      const tooMuch = await createInvoice({ lnd: bob(), tokens: 40_000 });
      const over = await server.app.inject({ url: `/lnurlw/dave/callback?k1=${second.k1}&pr=${tooMuch.request}` });
      expect(over.json().status).toBe('ERROR');
      expect((await getInvoice({ lnd: bob(), id: tooMuch.id })).is_confirmed).toBe(false);
    });
  });

  describe('node health', () => {
    test('GET /admin/node-health and /health report the node; Lightning actions are audited', async () => {
      const res = await as(server.app, user.accessToken)({ url: '/admin/node-health' });
      expect(res.statusCode, res.body).toBe(200);
      const info = await alice().info();
      expect(res.json()).toMatchObject({
        kind,
        alias: 'alice',
        pubkey: info.pubkey,
        synced: true,
        peers: 1,
        channels: { active: 1, pending: 0, inactive: 0 },
        assets: [],
      });
      expect(res.json().height).toBeGreaterThanOrEqual(info.height);
      expect(BigInt(res.json().balances.lightning_local_msat)).toBeGreaterThan(0n);
      expect(BigInt(res.json().balances.onchain_sat)).toBeGreaterThan(0n);
      const assets = await as(server.app, user.accessToken)({ url: '/admin/node-health?asset_id=rgb:x' });
      expect(assets.json().error.code).toBe('ASSETS_NEED_RGB_NODE');
      const other = await enrollAndSignIn(server.app);
      expect((await as(server.app, other.accessToken)({ url: '/admin/node-health' })).statusCode).toBe(403);

      const items = (await as(server.app, user.accessToken)({ url: '/admin/audit?limit=200' })).json().items;
      expect(items.map((i: { action: string }) => i.action)).toEqual(
        expect.arrayContaining(['payment.invoice_created', 'payment.pay', 'payment.keysend', 'lnurl.withdraw']),
      );
      // an invoice's audit row names the payment it recorded
      const created = items.find((i: { action: string }) => i.action === 'payment.invoice_created');
      const invoice = await server.app.ledger.getPayment(created.details.payment_id, created.target_id);
      expect(invoice).toMatchObject({ direction: 'in', kind: 'invoice' });
      expect(created.details.amount_msat).toBe(invoice!.amountMsat.toString());

      const health = await server.app.inject({ url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json().checks[kind]).toMatchObject({
        ok: true,
        details: { alias: 'alice', pubkey: info.pubkey, synced_to_chain: true },
      });
    });
  });

  describe('restarts', () => {
    test('an invoice paid while the server was down is credited at start, once', async () => {
      const w = await createWallet(server.app, user.accessToken, 'downtime');
      const inv = await newInvoice(w, 7_000_000);
      await server.app.close();
      await pay({ lnd: bob(), request: inv.payment_request });
      server = await lightningApp(infra(), await serverNode(nodeEnv), { databaseUrl: server.databaseUrl, env });
      expect(await balance(w)).toBe(7_000_000n);
      expect(await ledgerEntries(inv.payment.id)).toBe(1);
    });
  });
});
