// Every way a pay can fail before lnd takes it, against a real lnd (alice, the server's node) paying
// bob: the reservation is released at once (or, when it cannot be known whether lnd took it, by the
// reconcile within its grace), nothing stays reserved, the ledger adds up, and the invoice can be
// paid afterwards.
import { describe, expect, test } from 'vitest';
import { createInvoice, getInvoice, getWalletInfo, pay } from 'ln-service';
import { freePort } from '../../control-plane/src/util/ports.js';
import type { LightningClient } from '../../lib/lightning/client.js';
import { lightningClient } from '../../lib/lightning/implementations.js';
import { eventually, lightningApp, serverNode, serverOnLnd, type LightningApp } from './lightning-support.js';
import { as, createWallet, fund } from './support.js';

/** The invoice with some letters of its data part upper-cased, as the outside run sent it. */
function mixedCase(invoice: string): string {
  const separator = invoice.lastIndexOf('1');
  const data = [...invoice.slice(separator + 1)].map((c, i) => (i % 7 === 3 ? c.toUpperCase() : c)).join('');
  const mixed = invoice.slice(0, separator + 1) + data;
  if (mixed === invoice || mixed === mixed.toLowerCase()) throw new Error('no letter was upper-cased');
  return mixed;
}

/** A client of the real node whose pay is replaced: the faults of a hand-over. */
function withPay(node: LightningClient, pay: LightningClient['pay']): LightningClient {
  return new Proxy(node, {
    get: (target, prop) => (prop === 'pay' ? pay : Reflect.get(target, prop)),
  });
}

describe('a pay that fails before lnd takes it', () => {
  const lab = serverOnLnd();

  const bob = () => lab.regtest.lnd('bob');
  const payAs = (app: LightningApp, walletId: string, invoice: string) =>
    as(app.app, lab.user.accessToken, walletId)({ method: 'POST', url: '/payments/pay', payload: { invoice } });

  /** Another server on the same database and Redis (so the user's token works there), on `node`. */
  async function serverOn(node: LightningClient, extraEnv: Record<string, string> = {}): Promise<LightningApp> {
    return lightningApp(lab.infra, node, { databaseUrl: lab.server.databaseUrl, env: { ...lab.env, ...extraEnv } });
  }

  async function fundedWallet(name: string, msat: bigint): Promise<string> {
    const w = await createWallet(lab.server.app, lab.user.accessToken, name);
    await fund(lab.server.app, w, msat);
    return w;
  }

  /** The wallet holds `msat`, no outgoing payment of it is pending, and its ledger entries add up to
   * its balance, each reservation ended by a refund or a settlement. */
  async function expectNothingReserved(walletId: string, msat: bigint): Promise<void> {
    expect(await lab.server.app.ledger.btcBalanceMsat(walletId)).toBe(msat);
    expect((await lab.server.app.ledger.pendingOutgoing()).filter((p) => p.walletId === walletId)).toEqual([]);
    const { rows } = await lab.server.app.db.query<{ sum: string; unrefunded: string }>(
      `select coalesce(sum(delta), 0)::text as sum,
         (select count(*) from payments p where p.wallet_id = $1 and p.direction = 'out' and p.status = 'failed'
           and not exists (select 1 from ledger_entries e where e.payment_id = p.id and e.reason = 'refund'))::text
           as unrefunded
       from ledger_entries where wallet_id = $1 and asset_kind = 'btc'`,
      [walletId],
    );
    expect(BigInt(rows[0]!.sum)).toBe(msat);
    expect(rows[0]!.unrefunded).toBe('0');
  }

  /** The invoice (bob's, of 1,000 sat, id `id`) is then paid from the wallet, which held `heldMsat`:
   * nothing of the failure before is left in the way. */
  async function expectPaidAfter(walletId: string, request: string, id: string, heldMsat: bigint): Promise<void> {
    const paid = await payAs(lab.server, walletId, request);
    expect(paid.json(), paid.body).toMatchObject({ status: 'succeeded' });
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
    await expectNothingReserved(walletId, heldMsat - 1_000_000n - BigInt(paid.json().fee_msat));
  }

  /** Gives the wallet `username` with LNURL-withdraw on: 5,000 sat a withdraw, 10,000 sat in all. */
  async function enableWithdraw(walletId: string, username: string): Promise<void> {
    const claim = await as(
      lab.server.app,
      lab.user.accessToken,
    )({
      method: 'PUT',
      url: `/wallets/${walletId}/lightning-address`,
      payload: { username, withdraw: { enabled: true, max_msat_per_withdraw: 5_000_000, budget_msat: 10_000_000 } },
    });
    expect(claim.statusCode, claim.body).toBe(200);
  }

  async function outgoingOf(walletId: string): Promise<{ status: string; error: string | null }[]> {
    const res = await as(lab.server.app, lab.user.accessToken)({ url: `/wallets/${walletId}/transactions` });
    return (res.json().items as { direction: string; status: string; error: string | null }[])
      .filter((p) => p.direction === 'out')
      .map(({ status, error }) => ({ status, error }));
  }

  test('a mixed-case invoice is refused with 400 INVALID_INVOICE, reserves nothing, and the invoice is then paid', async () => {
    const w = await fundedWallet('mixed-case', 20_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    for (const form of [mixedCase(request), `lightning:${mixedCase(request)}`, `LNBCRT${request.slice(6)}`]) {
      const res = await payAs(lab.server, w, form);
      expect(res.statusCode, form).toBe(400);
      expect(res.json().error, form).toMatchObject({
        code: 'INVALID_INVOICE',
        message: expect.stringMatching(/mixes upper- and lower-case/),
      });
    }
    expect(await outgoingOf(w)).toEqual([]);
    await expectNothingReserved(w, 20_000_000n);

    await expectPaidAfter(w, request, id, 20_000_000n);
  });

  test('an all-upper-case invoice and one with a lightning: prefix are paid, as the lower-case invoice', async () => {
    const w = await fundedWallet('forms', 20_000_000n);
    const upper = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const prefixed = await createInvoice({ lnd: bob(), tokens: 2_000 });
    let spent = 0n;
    for (const [form, invoice] of [
      [upper.request.toUpperCase(), upper],
      [` lightning:${prefixed.request}\n`, prefixed],
    ] as const) {
      const res = await payAs(lab.server, w, form);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ status: 'succeeded', bolt11: invoice.request });
      expect((await getInvoice({ lnd: bob(), id: invoice.id })).is_confirmed).toBe(true);
      spent += BigInt(res.json().amount_msat) + BigInt(res.json().fee_msat);
    }
    await expectNothingReserved(w, 20_000_000n - spent);
  });

  test('an invoice lnd refuses before sending (already paid) fails at once and is refunded', async () => {
    const w = await fundedWallet('refused', 5_000_000n);
    const { request } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    await pay({ lnd: lab.regtest.lnd('alice'), request });
    const res = await payAs(lab.server, w, request);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^lnd refused the payment: .*already paid/i),
    });
    await expectNothingReserved(w, 5_000_000n);
  });

  test('lnd unreachable: 502 naming lnd, the payment failed and refunded at once; then paid when lnd is reached', async () => {
    const w = await fundedWallet('unreachable', 10_000_000n);
    const nowhere = `127.0.0.1:${await freePort()}`;
    const down = await serverOn(await serverNode({ ...lab.nodeEnv, LND_GRPC_HOST: nowhere }));
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const bobKey = (await getWalletInfo({ lnd: bob() })).public_key;
    try {
      const res = await payAs(down, w, request);
      expect(res.statusCode, res.body).toBe(502);
      expect(res.json().error).toMatchObject({
        code: 'DEPENDENCY_UNAVAILABLE',
        message: expect.stringMatching(/^lnd is unavailable: lnd did not take the payment/),
      });
      const keysend = await as(
        down.app,
        lab.user.accessToken,
        w,
      )({ method: 'POST', url: '/payments/keysend', payload: { dest_pubkey: bobKey, amount_msat: 1_000 } });
      // a keysend asks lnd for its own key first: refused before anything is reserved
      expect(keysend.statusCode, keysend.body).toBe(502);
      expect(keysend.json().error.code).toBe('DEPENDENCY_UNAVAILABLE');
      expect(await outgoingOf(w)).toEqual([
        {
          status: 'failed',
          error: expect.stringMatching(/^lnd did not take the payment: .*No connection established/),
        },
      ]);
      await expectNothingReserved(w, 10_000_000n);
    } finally {
      await down.app.close();
    }
    await expectPaidAfter(w, request, id, 10_000_000n);
  });

  test('an LDK or RLN daemon that refuses the connection: 502 naming it, nothing left reserved', async () => {
    const w = await fundedWallet('daemon-down', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    for (const [kind, node] of [
      ['ldk', lightningClient('ldk', { url: nowhere })],
      ['rln', lightningClient('rln', { url: nowhere })],
    ] as const) {
      const down = await serverOn(node, { NODE_KIND: kind });
      try {
        const res = await payAs(down, w, request);
        expect(res.statusCode, res.body).toBe(502);
        expect(res.json().error).toMatchObject({
          code: 'DEPENDENCY_UNAVAILABLE',
          message: expect.stringMatching(new RegExp(`^${kind} is unavailable: `)),
        });
        await expectNothingReserved(w, 10_000_000n);
      } finally {
        await down.app.close();
      }
    }
    // LDK was handed the payment and did not take it: a failed record; RLN is asked to read the
    // invoice first (for RGB assets), so nothing is recorded
    expect(await outgoingOf(w)).toEqual([
      { status: 'failed', error: expect.stringMatching(/^ldk did not take the payment: .*fetch failed/) },
    ]);
    await expectPaidAfter(w, request, id, 10_000_000n);
  });

  test('invoices refused before anything is reserved: unreadable, another network, no amount, expired', async () => {
    const w = await fundedWallet('unpayable', 10_000_000n);
    const noAmount = await createInvoice({ lnd: bob() });
    const expiresAt = new Date(Date.now() + 1_000);
    const expiring = await createInvoice({ lnd: bob(), tokens: 1_000, expires_at: expiresAt.toISOString() });
    await eventually(async () => Date.now() > expiresAt.getTime(), 'the invoice to expire');
    // BOLT11 spec test vector (mainnet)
    const mainnet =
      'lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp';
    for (const [invoice, code] of [
      ['lnbcrt1notaninvoice', 'INVALID_INVOICE'],
      [`${noAmount.request.slice(0, -1)}${noAmount.request.endsWith('q') ? 'p' : 'q'}`, 'INVALID_INVOICE'],
      [mainnet, 'WRONG_NETWORK'],
      [noAmount.request, 'AMOUNT_REQUIRED'],
      [expiring.request, 'INVOICE_EXPIRED'],
    ] as const) {
      const res = await payAs(lab.server, w, invoice);
      expect(res.statusCode, invoice).toBe(400);
      expect(res.json().error.code, invoice).toBe(code);
    }
    expect(await outgoingOf(w)).toEqual([]);
    await expectNothingReserved(w, 10_000_000n);
  });

  test('the node client throwing at once: the payment fails and is refunded, and the invoice is then paid', async () => {
    const w = await fundedWallet('throws', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const throwing = await serverOn(
      withPay(await serverNode(lab.nodeEnv), () => {
        throw new Error('ExpectedValidPaymentRequestToMakePayment');
      }),
    );
    try {
      const res = await payAs(throwing, w, request);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        status: 'failed',
        error: 'the payment was not handed to lnd: ExpectedValidPaymentRequestToMakePayment',
      });
      await expectNothingReserved(w, 10_000_000n);
    } finally {
      await throwing.app.close();
    }
    await expectPaidAfter(w, request, id, 10_000_000n);
  });

  test('a hand-over that never ends, of a payment lnd has no record of, is refunded by the reconcile after its grace', async () => {
    const w = await fundedWallet('hung', 10_000_000n);
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    const hung = await serverOn(
      withPay(await serverNode(lab.nodeEnv), () => new Promise(() => undefined)),
      { PAY_WAIT_MS: '200', PAY_UNKNOWN_GRACE_MS: '1000', INVOICE_RECONCILE_MS: '300' },
    );
    try {
      const res = await payAs(hung, w, request);
      expect(res.json(), res.body).toMatchObject({ status: 'pending' });
      expect(await lab.server.app.ledger.btcBalanceMsat(w)).toBe(10_000_000n - 1_000_000n - 10_000n);
      const refunded = await eventually(async () => {
        const [p] = await outgoingOf(w);
        return p?.status === 'failed' && p;
      }, 'the reconcile to refund the payment lnd never saw');
      expect(refunded.error).toBe('the node never started this payment');
      await expectNothingReserved(w, 10_000_000n);
    } finally {
      await hung.app.close();
    }
    await expectPaidAfter(w, request, id, 10_000_000n);
  });

  test('an LNURL-withdraw still pending when the callback answers, refunded later, gives its budget back', async () => {
    const w = await fundedWallet('lnurlw-late', 20_000_000n);
    await enableWithdraw(w, 'frank');
    const withdraw = async () =>
      (await as(lab.server.app, lab.user.accessToken)({ url: `/wallets/${w}/lightning-address` })).json().withdraw;
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 4_000 });
    const hung = await serverOn(
      withPay(await serverNode(lab.nodeEnv), () => new Promise(() => undefined)),
      { PAY_WAIT_MS: '200', PAY_UNKNOWN_GRACE_MS: '1000', INVOICE_RECONCILE_MS: '300' },
    );
    try {
      const { k1 } = (await hung.app.inject({ url: '/lnurlw/frank' })).json();
      const answer = await hung.app.inject({ url: `/lnurlw/frank/callback?k1=${k1}&pr=${request}` });
      expect(answer.json()).toEqual({ status: 'OK' });
      expect(await outgoingOf(w)).toEqual([{ status: 'pending', error: null }]);
      expect((await withdraw()).spent_msat).toBe('4000000');
      await eventually(async () => (await outgoingOf(w))[0]?.status === 'failed', 'the reconcile to refund it');
      await expectNothingReserved(w, 20_000_000n);
      expect(await withdraw()).toMatchObject({ spent_msat: '0', budget_msat: '10000000' });
    } finally {
      await hung.app.close();
    }
    // the whole budget can be withdrawn again
    const { k1 } = (await lab.server.app.inject({ url: '/lnurlw/frank' })).json();
    const ok = await lab.server.app.inject({ url: `/lnurlw/frank/callback?k1=${k1}&pr=${request}` });
    expect(ok.json()).toEqual({ status: 'OK' });
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
    expect((await withdraw()).spent_msat).toBe('4000000');
  });

  test('the public LNURL-withdraw callback refuses a mixed-case invoice, changing nothing; the invoice is then withdrawn', async () => {
    const w = await fundedWallet('lnurlw', 20_000_000n);
    await enableWithdraw(w, 'erin');
    const { k1 } = (await lab.server.app.inject({ url: '/lnurlw/erin' })).json();
    const { request, id } = await createInvoice({ lnd: bob(), tokens: 1_000 });
    for (let i = 0; i < 3; i++) {
      const refused = await lab.server.app.inject({
        url: `/lnurlw/erin/callback?k1=${k1}&pr=${encodeURIComponent(mixedCase(request))}`,
      });
      expect(refused.statusCode).toBe(200);
      expect(refused.json()).toEqual({ status: 'ERROR', reason: expect.stringMatching(/mixes upper- and lower-case/) });
    }
    await expectNothingReserved(w, 20_000_000n);
    const address = (await as(lab.server.app, lab.user.accessToken)({ url: `/wallets/${w}/lightning-address` })).json();
    expect(address.withdraw.spent_msat).toBe('0');

    const ok = await lab.server.app.inject({ url: `/lnurlw/erin/callback?k1=${k1}&pr=${request}` });
    expect(ok.json()).toEqual({ status: 'OK' });
    expect((await getInvoice({ lnd: bob(), id })).is_confirmed).toBe(true);
  });
});
