// The wallet server on an RGB Lightning Node — against the RLN CONTRACT DOUBLE (test/doubles), since
// RLN cannot run on these machines. What is checked is the server's use of RLN's API shapes.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { utils } from '@noble/secp256k1';
import { lightningClient } from '../../lib/lightning/implementations.js';
import { encodeBolt11 } from '../doubles/bolt11-encode.js';
import { startRlnDouble, type RlnDouble } from '../doubles/rln-double.js';
import { as, createWallet, enrollAndSignIn, fund, newKey, startInfra, type Infra, type TestUser } from './support.js';
import { eventually, lightningApp, type LightningApp } from './lightning-support.js';

const ASSET = 'rgb:2dkSTbr-jFhznbPmo-TQafzswCN-av4gTsJjX-ttx6CNou5-M98k8Zd';
// One token secret, so sign-ins survive the restart test.
const env = { NODE_KIND: 'rln', INVOICE_RECONCILE_MS: '200', TOKEN_SECRET: randomBytes(32).toString('hex') };

let infra: Infra;
let rln: RlnDouble;
let server: LightningApp;
let user: TestUser;
const adminKey = newKey();

const rlnClient = () => lightningClient('rln', { url: rln.url }, { pollMs: 50 });

beforeAll(async () => {
  [infra, rln] = await Promise.all([startInfra(), startRlnDouble()]);
  rln.control.assets.set(ASSET, {
    settled: 1000,
    future: 1000,
    spendable: 900,
    offchain_outbound: 50,
    offchain_inbound: 25,
  });
  server = await lightningApp(infra, rlnClient(), { env: { ...env, ADMIN_PUBKEYS: adminKey.pubkey } });
  user = await enrollAndSignIn(server.app, adminKey);
});

afterAll(async () => {
  await server?.app.close();
  await rln?.close();
  await infra?.stop();
});

const call = (walletId: string) => as(server.app, user.accessToken, walletId);

/** An invoice of some other node on regtest. */
async function foreignInvoice(amountMsat: bigint): Promise<{ bolt11: string; hash: string }> {
  const hash = createHash('sha256').update(randomBytes(32)).digest('hex');
  return { bolt11: await encodeBolt11({ secretKey: utils.randomSecretKey(), paymentHash: hash, amountMsat }), hash };
}

describe('invoices on RLN', () => {
  test('asset_id/asset_amount pass through to /lninvoice; settlement credits BTC and the asset once', async () => {
    const w = await createWallet(server.app, user.accessToken, 'rgb');
    const low = await call(w)({
      method: 'POST',
      url: '/payments/invoices',
      payload: { amount_msat: 1_000_000, asset_id: ASSET, asset_amount: 10 },
    });
    expect(low.statusCode).toBe(400);
    expect(low.json().error.code).toBe('RGB_AMOUNT_TOO_LOW');
    const half = await call(w)({
      method: 'POST',
      url: '/payments/invoices',
      payload: { amount_msat: 3_000_000, asset_id: ASSET },
    });
    expect(half.json().error.code).toBe('INVALID_ASSET');

    const asked = Date.now();
    const res = await call(w)({
      method: 'POST',
      url: '/payments/invoices',
      payload: { amount_msat: 3_000_000, asset_id: ASSET, asset_amount: 10, expiry_sec: 600 },
    });
    expect(res.statusCode, res.body).toBe(200);
    const inv = res.json();
    expect(inv.payment).toMatchObject({ asset_id: ASSET, asset_amount: '10', status: 'pending' });
    // 600 s after it was made (in whole seconds), while the call ran
    expect(new Date(inv.expires_at).getTime()).toBeGreaterThanOrEqual(asked - 1_000 + 600_000);
    expect(new Date(inv.expires_at).getTime()).toBeLessThanOrEqual(Date.now() + 600_000);

    rln.control.payInvoice(inv.payment_hash);
    await eventually(
      async () => (await server.app.ledger.btcBalanceMsat(w)) === 3_000_000n,
      'the RLN invoice to be seen paid (polling)',
    );
    const balances = await server.app.ledger.balances(w);
    expect(balances).toEqual([
      { assetKind: 'btc', assetId: '', amount: 3_000_000n },
      { assetKind: 'rgb', assetId: ASSET, amount: 10n },
    ]);
    const got = await call(w)({ url: `/payments/invoices/${inv.payment_hash}` });
    expect(got.json().status).toBe('succeeded');
    const { rows } = await server.app.db.query<{ n: string }>(
      'select count(*)::text as n from ledger_entries where payment_id = $1',
      [inv.payment.id],
    );
    expect(rows[0]!.n).toBe('2');
  });

  // found by the schema fuzz (openapi-fuzz.test.ts), where it ran on this double
  test('an asset RLN does not know is a 400 INVALID_ASSET, not a 502', async () => {
    const w = await createWallet(server.app, user.accessToken, 'rln-unknown-asset');
    const res = await call(w)({
      method: 'POST',
      url: '/payments/invoices',
      payload: { amount_msat: 3_000_000, asset_id: 'rgb:unknown', asset_amount: 1 },
    });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('INVALID_ASSET');
  });

  test('LNURL-pay needs a description hash, which RLN cannot put in an invoice: a clear 400', async () => {
    const w = await createWallet(server.app, user.accessToken, 'rln-lnurl');
    await as(
      server.app,
      user.accessToken,
    )({ method: 'PUT', url: `/wallets/${w}/lightning-address`, payload: { username: 'rgbuser' } });
    const cb = await server.app.inject({ url: '/lnurlp/rgbuser/callback?amount=5000' });
    expect(cb.statusCode).toBe(400);
    expect(cb.json().error.code).toBe('DESCRIPTION_HASH_UNSUPPORTED');
  });
});

describe('payments on RLN', () => {
  test.each([
    { outcome: 'Succeeded' as const, status: 'succeeded', balance: 6_000_000n },
    { outcome: 'Failed' as const, status: 'failed', balance: 10_000_000n },
  ])('pay $outcome on RLN: charged without a fee, or refunded in full', async ({ outcome, status, balance }) => {
    const w = await createWallet(server.app, user.accessToken, `rln-${outcome}`);
    await fund(server.app, w, 10_000_000n);
    rln.control.outcome = outcome;
    const { bolt11 } = await foreignInvoice(4_000_000n);
    const res = await call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: bolt11 } });
    expect(res.json()).toMatchObject({ status, fee_msat: '0', amount_msat: '4000000' });
    expect(await server.app.ledger.btcBalanceMsat(w)).toBe(balance);
    rln.control.outcome = 'Succeeded';
  });

  test('a payment pending when the server stops is settled from /getpayment after the restart', async () => {
    const w = await createWallet(server.app, user.accessToken, 'rln-restart');
    await fund(server.app, w, 10_000_000n);
    rln.control.outcome = 'Pending';
    rln.control.calls.length = 0;
    const { bolt11, hash } = await foreignInvoice(2_000_000n);
    const paying = call(w)({ method: 'POST', url: '/payments/pay', payload: { invoice: bolt11 } });
    await eventually(async () => rln.control.calls.includes('/sendpayment'), 'the payment to reach RLN');
    await server.app.close();
    await paying.catch(() => undefined);
    rln.control.resolvePayment(hash, 'Succeeded');
    server = await lightningApp(infra, rlnClient(), {
      databaseUrl: server.databaseUrl,
      env: { ...env, ADMIN_PUBKEYS: adminKey.pubkey },
    });
    const p = await server.app.ledger.findByHash(hash, w, 'out');
    expect(p).toMatchObject({ status: 'succeeded', feeMsat: 0n });
    expect(await server.app.ledger.btcBalanceMsat(w)).toBe(8_000_000n);
    rln.control.outcome = 'Succeeded';
  });

  test('keysend through RLN (its own preimage)', async () => {
    const w = await createWallet(server.app, user.accessToken, 'rln-keysend');
    await fund(server.app, w, 5_000_000n);
    const res = await call(w)({
      method: 'POST',
      url: '/payments/keysend',
      payload: { dest_pubkey: `02${'3'.repeat(64)}`, amount_msat: 1_000_000 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ status: 'succeeded', kind: 'keysend' });
    const { preimage, payment_hash: hash } = res.json();
    expect(createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')).toBe(hash);
    expect(await server.app.ledger.btcBalanceMsat(w)).toBe(4_000_000n);
    const self = await call(w)({
      method: 'POST',
      url: '/payments/keysend',
      payload: { dest_pubkey: rln.pubkey, amount_msat: 1_000 },
    });
    expect(self.json().error.code).toBe('KEYSEND_TO_SELF');
  });
});

describe('node health on RLN', () => {
  test('admin node-health reports the node and asset balances', async () => {
    const res = await as(
      server.app,
      user.accessToken,
    )({ url: `/admin/node-health?asset_id=${encodeURIComponent(ASSET)}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      kind: 'rln',
      pubkey: rln.pubkey,
      synced: true,
      height: 321,
      peers: 1,
      channels: { active: 1, pending: 0, inactive: 0 },
      balances: { onchain_sat: '2500000', lightning_local_msat: '400000000' },
      assets: [
        {
          asset_id: ASSET,
          settled: '1000',
          future: '1000',
          spendable: '900',
          offchain_outbound: '50',
          offchain_inbound: '25',
        },
      ],
    });
    // An asset RLN does not know (403 UnknownContractId) is the caller's mistake, not a node outage.
    const unknown = await as(server.app, user.accessToken)({ url: '/admin/node-health?asset_ids=rgb:nope' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('INVALID_ASSET');
  });

  test('/health carries the node check, and reports it when the node is gone', async () => {
    const up = await server.app.inject({ url: '/health' });
    expect(up.statusCode).toBe(200);
    const ok = up.json();
    expect(ok.checks.rln).toMatchObject({ ok: true, details: { pubkey: rln.pubkey, block_height: 321 } });
    const stopped = lightningClient('rln', { url: 'http://127.0.0.1:9' }, { timeoutMs: 1000 });
    const down = await lightningApp(infra, stopped, { env });
    const res = await down.app.inject({ url: '/health' });
    expect(res.statusCode).toBe(502);
    expect(res.json().checks.rln.ok).toBe(false);
    expect(res.json().status).toBe('degraded');
    // Routes that need the node answer 502, naming it.
    const someone = await enrollAndSignIn(down.app);
    const w = await createWallet(down.app, someone.accessToken);
    const inv = await as(
      down.app,
      someone.accessToken,
      w,
    )({ method: 'POST', url: '/payments/invoices', payload: { amount_msat: 1000 } });
    expect(inv.statusCode).toBe(502);
    expect(inv.json().error).toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: expect.stringMatching(/^rln is unavailable: RLN at http:\/\/127.0.0.1:9 is unreachable/),
    });
    await down.app.close();
  });
});

test('LNURL routes allow any origin (LUD-01); the others do not', async () => {
  const lnurl = await server.app.inject({
    url: '/.well-known/lnurlp/nobody',
    headers: { origin: 'https://wallet.example' },
  });
  expect(lnurl.headers['access-control-allow-origin']).toBe('*');
  const health = await server.app.inject({ url: '/health', headers: { origin: 'https://wallet.example' } });
  expect(health.headers['access-control-allow-origin']).toBeUndefined();
});

test('the Lightning routes are in the OpenAPI document', async () => {
  const doc = (await server.app.inject({ url: '/openapi.json' })).json();
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining([
      '/payments/invoices',
      '/payments/invoices/{hash}',
      '/payments/pay',
      '/payments/keysend',
      '/.well-known/lnurlp/{username}',
      '/lnurlp/{username}/callback',
      '/lnurlw/{username}',
      '/lnurlw/{username}/callback',
      '/wallets/{id}/lightning-address',
      '/admin/node-health',
    ]),
  );
});
