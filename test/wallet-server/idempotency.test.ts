// Idempotency-Key on pay, keysend and internal transfer, against a real lnd (alice, the server's
// node) paying bob: the same key twice makes one payment and the second answer is the first's; the
// same key with another request is a 409 that changes nothing; keys are kept in Postgres, per user,
// across a restart.
import { beforeAll, describe, expect, test } from 'vitest';
import { createInvoice, getInvoice, getInvoices, getWalletInfo } from 'ln-service';
import { lightningApp, serverNode, serverOnLnd } from './lightning-support.js';
import { as, createWallet, enrollAndSignIn, fund, newKey } from './support.js';

describe('Idempotency-Key', () => {
  const lab = serverOnLnd();
  let bobKey: string;

  beforeAll(async () => {
    bobKey = (await getWalletInfo({ lnd: lab.regtest.lnd('bob') })).public_key;
  });

  const bob = () => lab.regtest.lnd('bob');
  const withKey = (walletId: string | undefined, key: string, token = lab.user.accessToken) => {
    const call = as(lab.server.app, token, walletId);
    return (url: string, payload: Record<string, unknown>) =>
      call({ method: 'POST', url, payload, headers: { 'idempotency-key': key } });
  };
  const balance = (walletId: string) => lab.server.app.ledger.btcBalanceMsat(walletId);
  const outgoing = async (walletId: string) =>
    (
      (await as(lab.server.app, lab.user.accessToken)({ url: `/wallets/${walletId}/transactions` })).json().items as {
        id: string;
        direction: string;
      }[]
    ).filter((p) => p.direction === 'out');

  async function fundedWallet(name: string, msat: bigint): Promise<string> {
    const w = await createWallet(lab.server.app, lab.user.accessToken, name);
    await fund(lab.server.app, w, msat);
    return w;
  }

  test('pay: the same key twice makes one payment, and the second answer is the first payment', async () => {
    const w = await fundedWallet('pay-twice', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const send = withKey(w, 'pay-twice-1');
    const first = await send('/payments/pay', { invoice: request });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().status).toBe('succeeded');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // the same request, the invoice written in upper case: the same payment
    for (const invoice of [request, request.toUpperCase()]) {
      const again = await send('/payments/pay', { invoice });
      expect(again.statusCode, again.body).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.json()).toEqual(first.json());
    }
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
    expect(await outgoing(w)).toHaveLength(1);
    expect(await balance(w)).toBe(10_000_000n - 1_000_000n - BigInt(first.json().fee_msat));
  });

  test('pay: requests with one key sent at once make one payment; each is answered with it', async () => {
    const w = await fundedWallet('pay-at-once', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const send = withKey(w, 'pay-at-once-1');
    const answers = await Promise.all(Array.from({ length: 8 }, () => send('/payments/pay', { invoice: request })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
    const paymentIds = new Set(answers.map((a) => a.json().id));
    expect(paymentIds.size).toBe(1);
    expect(await outgoing(w)).toEqual([expect.objectContaining({ id: [...paymentIds][0] })]);
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
    const paid = (await as(lab.server.app, lab.user.accessToken, w)({ url: `/payments/invoices/${id}` })).json();
    expect(paid.status).toBe('succeeded');
    expect(await balance(w)).toBe(10_000_000n - 1_000_000n - BigInt(paid.fee_msat));
  });

  test('the same key with another invoice, wallet or route is a 409 that pays nothing', async () => {
    const w = await fundedWallet('reused', 10_000_000n);
    const w2 = await fundedWallet('reused-2', 10_000_000n);
    const first = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const second = await createInvoice({ lnd: bob(), tokens: 1_000 });
    expect((await withKey(w, 'reused-1')('/payments/pay', { invoice: first.request })).statusCode).toBe(200);
    const after = await balance(w);

    const refusals = [
      await withKey(w, 'reused-1')('/payments/pay', { invoice: second.request }),
      await withKey(w2, 'reused-1')('/payments/pay', { invoice: first.request }),
      await withKey(w, 'reused-1')('/payments/keysend', { dest_pubkey: bobKey, amount_msat: 1_000 }),
      await withKey(undefined, 'reused-1')('/payments/internal', {
        from_wallet_id: w,
        to_wallet_id: w2,
        asset_kind: 'btc',
        amount_msat: 1_000,
      }),
    ];
    for (const res of refusals) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().error).toEqual({
        code: 'IDEMPOTENCY_KEY_REUSED',
        message: expect.stringMatching(
          /^the Idempotency-Key "reused-1" was given to another request \(POST \/payments\/pay.*\): give each new request a key of its own$/,
        ),
      });
    }
    expect((await getInvoice({ lnd: bob(), id: second.id })).is_confirmed).toBe(false);
    expect(await balance(w)).toBe(after);
    expect(await balance(w2)).toBe(10_000_000n);
    expect(await outgoing(w)).toHaveLength(1);
    expect(await outgoing(w2)).toEqual([]);
  });

  test('keysend: the same key twice sends once', async () => {
    const w = await fundedWallet('keysend-twice', 10_000_000n);
    const send = withKey(w, 'keysend-twice-1');
    const first = await send('/payments/keysend', { dest_pubkey: bobKey, amount_msat: 2_000_000 });
    expect(first.json(), first.body).toMatchObject({ status: 'succeeded', kind: 'keysend' });
    const again = await send('/payments/keysend', { dest_pubkey: bobKey.toUpperCase(), amount_msat: '2000000' });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    const received = (await getInvoices({ lnd: bob() })).invoices.filter((i) => i.id === first.json().payment_hash);
    expect(received).toHaveLength(1);
    expect(await outgoing(w)).toHaveLength(1);
    expect(await balance(w)).toBe(8_000_000n - BigInt(first.json().fee_msat));
  });

  test('internal transfer: the same key twice moves the amount once; another amount is a 409', async () => {
    const from = await fundedWallet('transfer-from', 5_000_000n);
    const to = await createWallet(lab.server.app, lab.user.accessToken, 'transfer-to');
    const send = withKey(undefined, 'transfer-1');
    const body = { from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 1_500_000 };
    const first = await send('/payments/internal', body);
    expect(first.statusCode, first.body).toBe(200);
    const again = await send('/payments/internal', body);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const other = await send('/payments/internal', { ...body, amount_msat: 1_000_000 });
    expect(other.statusCode).toBe(409);
    expect([await balance(from), await balance(to)]).toEqual([3_500_000n, 1_500_000n]);
  });

  test('a refused request leaves its key free: sent again once it can be made, it is made', async () => {
    const w = await createWallet(lab.server.app, lab.user.accessToken, 'refused-first');
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const send = withKey(w, 'refused-first-1');
    const poor = await send('/payments/pay', { invoice: request });
    expect(poor.statusCode).toBe(400);
    expect(poor.json().error.code).toBe('INSUFFICIENT_FUNDS');
    await fund(lab.server.app, w, 5_000_000n);
    const paid = await send('/payments/pay', { invoice: request });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().status).toBe('succeeded');
    expect(paid.headers['idempotent-replayed']).toBeUndefined();
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
  });

  test('keys are per user, and a malformed key is a 400', async () => {
    const w = await fundedWallet('per-user', 5_000_000n);
    const stranger = await enrollAndSignIn(lab.server.app, newKey());
    const theirs = await createWallet(lab.server.app, stranger.accessToken, 'theirs');
    await fund(lab.server.app, theirs, 5_000_000n);
    const a = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const b = await createInvoice({ lnd: bob(), tokens: 1_000 });
    expect((await withKey(w, 'shared-key')('/payments/pay', { invoice: a.request })).json().status).toBe('succeeded');
    const res = await withKey(theirs, 'shared-key', stranger.accessToken)('/payments/pay', { invoice: b.request });
    expect(res.json(), res.body).toMatchObject({ status: 'succeeded', wallet_id: theirs });

    const doc = (await lab.server.app.inject({ url: '/openapi.json' })).json();
    for (const path of ['/payments/pay', '/payments/keysend', '/payments/internal']) {
      const header = doc.paths[path].post.parameters.find((p: { name: string }) => p.name === 'idempotency-key');
      expect(header, path).toMatchObject({
        in: 'header',
        required: false,
        schema: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
      });
      expect(Object.keys(doc.paths[path].post.responses), path).toContain('409');
    }

    for (const key of ['', 'has space', 'x'.repeat(65), 'a.b']) {
      const bad = await withKey(w, key)('/payments/pay', { invoice: a.request });
      expect(bad.statusCode, key).toBe(400);
      expect(bad.json().error.message, key).toMatch(/idempotency-key/);
    }
  });

  test('keys are kept in Postgres: after a restart the same key answers the same payment', async () => {
    const w = await fundedWallet('restart', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const first = await withKey(w, 'restart-1')('/payments/pay', { invoice: request });
    expect(first.json().status).toBe('succeeded');
    await lab.server.app.close();
    lab.server = await lightningApp(lab.infra, await serverNode(lab.nodeEnv), {
      databaseUrl: lab.server.databaseUrl,
      env: lab.env,
    });
    const again = await withKey(w, 'restart-1')('/payments/pay', { invoice: request });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await outgoing(w)).toHaveLength(1);
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
  });
});
