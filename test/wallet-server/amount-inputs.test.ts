// Amounts and limits the wallet server must refuse, each with a 400 that names what was wrong and
// changes nothing: LNURL-withdraw limits of 0 (or below the smallest withdraw), -0 anywhere in a
// body, an RGB invoice of 0 asset units. The Lightning routes run on the RLN contract double, which
// records every call, so a refused request is seen never to reach the node.
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lightningClient } from '../../lib/lightning/implementations.js';
import { startRlnDouble, type RlnDouble } from '../doubles/rln-double.js';
import { lightningApp, type LightningApp } from './lightning-support.js';
import { as, createWallet, enrollAndSignIn, fund, startInfra, type Infra, type TestUser } from './support.js';

let infra: Infra;
let rln: RlnDouble;
let server: LightningApp;
let user: TestUser;
let wallet: string;
let other: string;

beforeAll(async () => {
  [infra, rln] = await Promise.all([startInfra(), startRlnDouble()]);
  server = await lightningApp(infra, lightningClient('rln', { url: rln.url }, { pollMs: 50 }), {
    env: { NODE_KIND: 'rln', INVOICE_RECONCILE_MS: '200' },
  });
  user = await enrollAndSignIn(server.app);
  wallet = await createWallet(server.app, user.accessToken, 'main');
  other = await createWallet(server.app, user.accessToken, 'other');
  await fund(server.app, wallet, 50_000_000n);
});

afterAll(async () => {
  await server?.app.close();
  await rln?.close();
  await infra?.stop();
});

/** A request whose JSON body is sent as written (JSON.stringify turns -0 into 0). */
const raw = (opts: InjectOptions & { json: string }, walletKey?: string) =>
  as(
    server.app,
    user.accessToken,
    walletKey,
  )({ ...opts, payload: opts.json, headers: { ...opts.headers, 'content-type': 'application/json' } });

const claim = (withdraw: Record<string, unknown>) =>
  as(
    server.app,
    user.accessToken,
  )({
    method: 'PUT',
    url: `/wallets/${wallet}/lightning-address`,
    payload: { username: 'frank', withdraw },
  });

const addressNow = async () =>
  (await as(server.app, user.accessToken)({ url: `/wallets/${wallet}/lightning-address` })).json();

const paymentsOf = async (walletId: string) =>
  (await as(server.app, user.accessToken)({ url: `/wallets/${walletId}/transactions` })).json().items as unknown[];

describe('LNURL-withdraw limits', () => {
  test('a limit of 0, below the smallest withdraw, or missing while enabled is a 400 that changes nothing', async () => {
    const set = await claim({ enabled: true, max_msat_per_withdraw: 5_000_000, budget_msat: 10_000_000 });
    expect(set.statusCode, set.body).toBe(200);
    const before = await addressNow();

    for (const [withdraw, message] of [
      [
        { enabled: true, max_msat_per_withdraw: 0, budget_msat: 10_000_000 },
        /withdraw.max_msat_per_withdraw must be at least 1000 msat/,
      ],
      [
        { enabled: true, max_msat_per_withdraw: '0', budget_msat: 10_000_000 },
        /withdraw.max_msat_per_withdraw must be at least 1000 msat/,
      ],
      [
        { enabled: true, max_msat_per_withdraw: 5_000_000, budget_msat: 0 },
        /withdraw.budget_msat must be at least 1000 msat/,
      ],
      [
        { enabled: true, max_msat_per_withdraw: 999, budget_msat: 10_000_000 },
        /max_msat_per_withdraw must be at least 1000/,
      ],
      [{ enabled: false, max_msat_per_withdraw: 0 }, /max_msat_per_withdraw must be at least 1000/],
      [{ enabled: true }, /enabling LNURL-withdraw needs max_msat_per_withdraw and budget_msat/],
      [{ enabled: true, max_msat_per_withdraw: 5_000_000 }, /needs max_msat_per_withdraw and budget_msat/],
    ] as const) {
      const res = await claim(withdraw);
      expect(res.statusCode, JSON.stringify(withdraw)).toBe(400);
      expect(res.json().error, JSON.stringify(withdraw)).toEqual({
        code: 'INVALID_AMOUNT',
        message: expect.stringMatching(message),
      });
    }
    expect(await addressNow()).toEqual(before);
  });

  test('a budget or limit of -0 is refused, naming the field', async () => {
    const before = await addressNow();
    for (const field of ['budget_msat', 'max_msat_per_withdraw']) {
      const limits = { max_msat_per_withdraw: '5000000', budget_msat: '10000000', [field]: '-0' };
      const res = await raw({
        method: 'PUT',
        url: `/wallets/${wallet}/lightning-address`,
        json: `{"username":"frank","withdraw":{"enabled":true,"max_msat_per_withdraw":${limits.max_msat_per_withdraw},"budget_msat":${limits.budget_msat}}}`,
      });
      expect(res.statusCode, field).toBe(400);
      expect(res.json().error, field).toEqual({
        code: 'BAD_REQUEST',
        message: `body/withdraw/${field} must not be -0 (a negative zero): send 0 or a positive number`,
      });
    }
    expect(await addressNow()).toEqual(before);
  });
});

describe('-0 elsewhere', () => {
  test('in an invoice, a keysend, an internal transfer: a 400 naming the field; nothing recorded, the node not asked', async () => {
    const callsBefore = rln.control.calls.length;
    const cases: [InjectOptions & { json: string }, string][] = [
      [{ method: 'POST', url: '/payments/invoices', json: '{"amount_msat":-0}' }, 'body/amount_msat'],
      [{ method: 'POST', url: '/payments/invoices', json: '{"amount_msat":1000,"expiry_sec":-0}' }, 'body/expiry_sec'],
      [
        { method: 'POST', url: '/payments/keysend', json: `{"dest_pubkey":"${rln.pubkey}","amount_msat":-0}` },
        'body/amount_msat',
      ],
      [
        {
          method: 'POST',
          url: '/payments/internal',
          json: `{"from_wallet_id":"${wallet}","to_wallet_id":"${other}","asset_kind":"btc","amount_msat":-0.0}`,
        },
        'body/amount_msat',
      ],
    ];
    for (const [opts, field] of cases) {
      const res = await raw(opts, wallet);
      expect(res.statusCode, opts.json).toBe(400);
      expect(res.json().error, opts.json).toEqual({
        code: 'BAD_REQUEST',
        message: `${field} must not be -0 (a negative zero): send 0 or a positive number`,
      });
    }
    expect(await paymentsOf(other)).toEqual([]);
    expect((await paymentsOf(wallet)).length).toBe(1); // the funding
    expect(rln.control.calls.slice(callsBefore)).toEqual([]);
  });
});

describe('RGB invoices', () => {
  test('an invoice of 0 asset units is a 400; RLN is not asked and nothing is recorded', async () => {
    rln.control.assets.set('rgb:zero', {
      settled: 10,
      future: 10,
      spendable: 10,
      offchain_outbound: 10,
      offchain_inbound: 0,
    });
    const callsBefore = rln.control.calls.length;
    for (const asset_amount of [0, '0']) {
      const res = await as(
        server.app,
        user.accessToken,
        other,
      )({
        method: 'POST',
        url: '/payments/invoices',
        payload: { amount_msat: 3_000_000, asset_id: 'rgb:zero', asset_amount },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toEqual({
        code: 'INVALID_AMOUNT',
        message: expect.stringMatching(/^asset_amount must be greater than 0/),
      });
    }
    expect(rln.control.calls.slice(callsBefore)).toEqual([]);
    expect(await paymentsOf(other)).toEqual([]);
  });
});
