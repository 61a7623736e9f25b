import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { appOn, as, createWallet, enrollAndSignIn, fund, startInfra, type Infra, type TestUser } from './support.js';

describe('wallet-server ledger and internal transfers', () => {
  let infra: Infra;
  let app: FastifyInstance;
  let alice: TestUser;

  beforeAll(async () => {
    infra = await startInfra();
    ({ app } = await appOn(infra, { DATABASE_POOL_MAX: '10' }));
    alice = await enrollAndSignIn(app);
  });
  afterAll(async () => {
    await app?.close();
    await infra?.stop();
  });

  const transfer = (body: Record<string, unknown>) =>
    as(app, alice.accessToken)({ method: 'POST', url: '/payments/internal', payload: body });
  const balance = async (id: string) =>
    (await as(app, alice.accessToken)({ url: `/wallets/${id}` })).json() as {
      balance_msat: string;
      assets: Array<{ asset_id: string; amount: string }>;
    };

  /** Every balance equals the sum of its ledger entries, and each entry's balance_after chains. */
  async function expectLedgerConsistent() {
    const { rows } = await app.db.query<{
      wallet_id: string;
      asset_kind: string;
      asset_id: string;
      amount: string;
      entries: string | null;
    }>(
      `select b.wallet_id::text, b.asset_kind, b.asset_id, b.amount::text,
        (select sum(delta)::text from ledger_entries e where e.wallet_id = b.wallet_id and e.asset_kind = b.asset_kind and e.asset_id = b.asset_id) as entries
       from balances b`,
    );
    for (const r of rows) expect(r.entries ?? '0', `${r.wallet_id} ${r.asset_kind} ${r.asset_id}`).toBe(r.amount);
    const { rows: negative } = await app.db.query('select 1 from ledger_entries where balance_after < 0');
    expect(negative).toHaveLength(0);
  }

  it('moves BTC between two wallets with a payment on each side and entries in the ledger', async () => {
    const from = await createWallet(app, alice.accessToken, 'from');
    const to = await createWallet(app, alice.accessToken, 'to');
    await fund(app, from, 10_000n);
    const res = await transfer({ from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 2_500 });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.status).toBe('succeeded');
    expect(body.out).toMatchObject({
      wallet_id: from,
      direction: 'out',
      kind: 'internal',
      status: 'succeeded',
      amount_msat: '2500',
      counterparty_wallet_id: to,
      transfer_id: body.transfer_id,
    });
    expect(body.in).toMatchObject({
      wallet_id: to,
      direction: 'in',
      amount_msat: '2500',
      transfer_id: body.transfer_id,
    });
    expect((await balance(from)).balance_msat).toBe('7500');
    expect((await balance(to)).balance_msat).toBe('2500');
    // large amounts as decimal strings
    expect(
      (await transfer({ from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: '500' })).statusCode,
    ).toBe(200);
    const got = await as(app, alice.accessToken, to)({ url: `/payments/${body.in.id}` });
    expect(got.statusCode).toBe(200);
    expect(got.json().id).toBe(body.in.id);
    expect((await as(app, alice.accessToken, from)({ url: `/payments/${body.in.id}` })).statusCode).toBe(404);
    expect((await as(app, alice.accessToken, from)({ url: '/payments/not-a-uuid' })).statusCode).toBe(400);
    expect((await as(app, alice.accessToken)({ url: `/payments/${body.in.id}` })).statusCode).toBe(400);
    await expectLedgerConsistent();
  });

  it('moves RGB asset amounts per asset', async () => {
    const from = await createWallet(app, alice.accessToken, 'rgb-from');
    const to = await createWallet(app, alice.accessToken, 'rgb-to');
    await fund(app, from, 0n, { assetId: 'rgb:usdt', amount: 100n });
    const res = await transfer({
      from_wallet_id: from,
      to_wallet_id: to,
      asset_kind: 'rgb',
      asset_id: 'rgb:usdt',
      asset_amount: '40',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().out).toMatchObject({ asset_id: 'rgb:usdt', asset_amount: '40', amount_msat: '0' });
    expect((await balance(from)).assets).toEqual([{ asset_id: 'rgb:usdt', amount: '60' }]);
    expect((await balance(to)).assets).toEqual([{ asset_id: 'rgb:usdt', amount: '40' }]);
    const wrongAsset = await transfer({
      from_wallet_id: from,
      to_wallet_id: to,
      asset_kind: 'rgb',
      asset_id: 'rgb:other',
      asset_amount: '1',
    });
    expect(wrongAsset.statusCode).toBe(400);
    expect(wrongAsset.json().error.code).toBe('INSUFFICIENT_FUNDS');
    await expectLedgerConsistent();
  });

  it('refuses malformed bodies and amounts with 400 and changes nothing', async () => {
    const from = await createWallet(app, alice.accessToken, 'm-from');
    const to = await createWallet(app, alice.accessToken, 'm-to');
    await fund(app, from, 1_000n);
    const { rows: before } = await app.db.query<{ n: string }>('select count(*)::text as n from ledger_entries');
    const base = { from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc' };
    for (const body of [
      { ...base, amount_msat: -1 },
      { ...base, amount_msat: 1.5 },
      { ...base, amount_msat: '1e3' },
      { ...base, amount_msat: '-5' },
      { ...base, amount_msat: 2 ** 60 },
      { ...base, amount_msat: '9223372036854775808' },
      { ...base, asset_kind: 'rgb', asset_id: 'rgb:a', asset_amount: '99999999999999999999' },
      { ...base, amount_msat: 0 },
      { ...base, amount_msat: 1_001 },
      { ...base },
      { ...base, asset_kind: 'eth', amount_msat: 1 },
      { ...base, from_wallet_id: 'x', amount_msat: 1 },
      { ...base, to_wallet_id: from, amount_msat: 1 },
      { ...base, asset_kind: 'rgb', asset_amount: '1' },
      { ...base, asset_kind: 'rgb', asset_id: 'rgb:a', asset_amount: 1 },
      { ...base, asset_kind: 'rgb', asset_id: 'rgb:a', asset_amount: '1.0' },
    ]) {
      const res = await transfer(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBeTruthy();
    }
    const notJson = await as(
      app,
      alice.accessToken,
    )({
      method: 'POST',
      url: '/payments/internal',
      payload: '{"from_wallet_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.statusCode).toBe(400);
    const { rows: after } = await app.db.query<{ n: string }>('select count(*)::text as n from ledger_entries');
    expect(after[0]!.n).toBe(before[0]!.n);
    expect((await balance(from)).balance_msat).toBe('1000');
    expect((await balance(to)).balance_msat).toBe('0');
  });

  it('takes a wallet id in upper case as the same wallet, and refuses the urn:uuid: form, changing nothing', async () => {
    const w = await createWallet(app, alice.accessToken, 'one-wallet');
    await fund(app, w, 10_000n);
    const self = await transfer({
      from_wallet_id: w,
      to_wallet_id: w.toUpperCase(),
      asset_kind: 'btc',
      amount_msat: 1,
    });
    expect(self.statusCode, self.body).toBe(400);
    expect(self.json().error.code).toBe('SAME_WALLET');
    const urn = await transfer({ from_wallet_id: w, to_wallet_id: `urn:uuid:${w}`, asset_kind: 'btc', amount_msat: 1 });
    expect(urn.statusCode, urn.body).toBe(400);
    expect(urn.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/to_wallet_id/) });
    expect((await as(app, alice.accessToken)({ url: `/wallets/${w}/transactions` })).json().items).toHaveLength(1);
    expect((await balance(w)).balance_msat).toBe('10000');

    const other = await createWallet(app, alice.accessToken, 'other-wallet');
    const upper = await transfer({
      from_wallet_id: w.toUpperCase(),
      to_wallet_id: other.toUpperCase(),
      asset_kind: 'btc',
      amount_msat: 1_000,
    });
    expect(upper.statusCode, upper.body).toBe(200);
    expect(upper.json().out).toMatchObject({ wallet_id: w, counterparty_wallet_id: other });
    await expectLedgerConsistent();
  });

  it('lets exactly 5 of 50 concurrent transfers through from a wallet funded for 5', async () => {
    const from = await createWallet(app, alice.accessToken, 'race');
    const targets = [
      await createWallet(app, alice.accessToken, 't1'),
      await createWallet(app, alice.accessToken, 't2'),
    ];
    await fund(app, from, 5_000n);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        transfer({ from_wallet_id: from, to_wallet_id: targets[i % 2], asset_kind: 'btc', amount_msat: 1_000 }),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 400)).toHaveLength(45);
    expect(results.find((r) => r.statusCode === 400)!.json().error.code).toBe('INSUFFICIENT_FUNDS');
    expect((await balance(from)).balance_msat).toBe('0');
    const received = (await balance(targets[0]!)).balance_msat;
    expect(BigInt(received) + BigInt((await balance(targets[1]!)).balance_msat)).toBe(5_000n);
    await expectLedgerConsistent();
  });

  it('does not deadlock on transfers in opposite directions at once', async () => {
    const a = await createWallet(app, alice.accessToken, 'a');
    const b = await createWallet(app, alice.accessToken, 'b');
    await fund(app, a, 100_000n);
    await fund(app, b, 100_000n);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        transfer({ from_wallet_id: i % 2 ? a : b, to_wallet_id: i % 2 ? b : a, asset_kind: 'btc', amount_msat: 10 }),
      ),
    );
    // Postgres breaks a deadlock by aborting one transaction, which would surface as a 500 here.
    expect(results.map((r) => r.statusCode)).toEqual(Array(40).fill(200));
    expect((await balance(a)).balance_msat).toBe('100000');
    await expectLedgerConsistent();
  });

  it('pages transactions newest first by cursor; more than 200 is a 400', async () => {
    const from = await createWallet(app, alice.accessToken, 'pager');
    const to = await createWallet(app, alice.accessToken, 'pager-to');
    await fund(app, from, 1_000n);
    for (let i = 0; i < 7; i++)
      await transfer({ from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 1 });
    const call = as(app, alice.accessToken);
    const all = (await call({ url: `/wallets/${from}/transactions` })).json();
    expect(all.items).toHaveLength(8); // 7 transfers + the funding credit
    expect(all.next_before).toBeNull();
    expect(all.items[all.items.length - 1].kind).toBe('invoice');
    const ids = all.items.map((p: { id: string }) => p.id);
    expect(ids).toEqual([...ids].sort().reverse());
    const p1 = (await call({ url: `/wallets/${from}/transactions?limit=3` })).json();
    expect(p1.items.map((p: { id: string }) => p.id)).toEqual(ids.slice(0, 3));
    const p2 = (await call({ url: `/wallets/${from}/transactions?limit=3&before=${p1.next_before}` })).json();
    expect(p2.items.map((p: { id: string }) => p.id)).toEqual(ids.slice(3, 6));
    expect((await call({ url: `/wallets/${from}/transactions?limit=0` })).json().items).toEqual([]);
    const tooBig = await call({ url: `/wallets/${from}/transactions?limit=201` });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().error.message).toMatch(/200/);
    expect((await call({ url: `/wallets/${from}/transactions?limit=-1` })).statusCode).toBe(400);
  });
});
