// Ledger.payInvoiceInternally (the ledger_pay_invoice statement) on real Postgres: an invoice of one
// wallet paid by another without the node — both legs of an RGB invoice, the node-invoice cancel
// row, every refusal changing nothing, and a hash this server issued no invoice for left to the node.
import { describe, expect, it } from 'vitest';
import type { Balance } from '../../services/wallet-server/src/ledger/index.js';
import { archiveWallet } from '../../services/wallet-server/src/wallets/store.js';
import { newId } from '../../services/wallet-server/src/ids.js';
import { ledgerOnPostgres } from './ledger-support.js';

describe('paying an invoice of another wallet internally, on real Postgres', () => {
  const pg = ledgerOnPostgres('pay_internally');
  const hash = () => newId().replace(/-/g, '').repeat(2);
  const invoice = (
    walletId: string,
    amountMsat: bigint,
    extra: { assetId?: string; assetAmount?: bigint; expiresAt?: Date } = {},
  ) =>
    pg.ledger.createIncoming({
      walletId,
      kind: 'invoice',
      amountMsat,
      paymentHash: hash(),
      bolt11: 'lnbcrt1test',
      expiresAt: extra.expiresAt ?? new Date(Date.now() + 3600_000),
      ...extra,
    });
  const fundBtc = (walletId: string, msat: bigint) =>
    pg.ledger.recordReceived({ walletId, kind: 'invoice', amountMsat: msat });
  /** Everything a refusal must leave untouched. */
  const snapshot = async (...walletIds: string[]) => ({
    balances: await Promise.all(walletIds.map((w) => pg.ledger.balances(w))),
    entries: (await pg.db.query<{ n: string }>('select count(*)::text as n from ledger_entries')).rows[0]!.n,
    payments: (await pg.db.query<{ n: string }>('select count(*)::text as n from payments')).rows[0]!.n,
    cancels: (await pg.db.query<{ n: string }>('select count(*)::text as n from node_invoice_cancels')).rows[0]!.n,
  });
  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => 'paid',
      (err: { code?: string }) => err.code,
    );

  it('moves the amount once, records both sides with one transfer id, and queues the node cancel', async () => {
    const [payer, payee] = [await pg.wallet(), await pg.wallet()];
    await fundBtc(payer, 5_000_000n);
    const inv = await invoice(payee, 1_500_000n);
    const {
      transferId,
      out,
      in: paid,
    } = (await pg.ledger.payInvoiceInternally({
      payerWalletId: payer,
      paymentHash: inv.paymentHash!,
      audit: { userId: pg.userId, action: 'payment.pay', targetType: 'wallet', targetId: payer },
    }))!;
    expect(out).toMatchObject({
      walletId: payer,
      direction: 'out',
      kind: 'pay',
      status: 'succeeded',
      amountMsat: 1_500_000n,
      feeMsat: 0n,
      paymentHash: inv.paymentHash,
      transferId,
      counterpartyWalletId: payee,
    });
    expect(paid).toMatchObject({ id: inv.id, status: 'succeeded', transferId, counterpartyWalletId: payer });
    expect(await pg.ledger.btcBalanceMsat(payer)).toBe(3_500_000n);
    expect(await pg.ledger.btcBalanceMsat(payee)).toBe(1_500_000n);
    const { rows: entries } = await pg.db.query<{
      wallet_id: string;
      delta: string;
      reason: string;
      payment_id: string;
    }>(
      'select wallet_id::text, delta::text, reason, payment_id::text from ledger_entries where payment_id in ($1, $2) order by reason',
      [out.id, inv.id],
    );
    expect(entries).toEqual([
      { wallet_id: payee, delta: '1500000', reason: 'transfer_in', payment_id: inv.id },
      { wallet_id: payer, delta: '-1500000', reason: 'transfer_out', payment_id: out.id },
    ]);
    const { rows: cancels } = await pg.db.query(
      'select invoice_payment_id::text, done_at from node_invoice_cancels where payment_hash = $1',
      [inv.paymentHash],
    );
    expect(cancels).toEqual([{ invoice_payment_id: inv.id, done_at: null }]);
    const { rows: audit } = await pg.db.query('select action, target_id from audit_log where target_id = $1', [payer]);
    expect(audit).toEqual([{ action: 'payment.pay', target_id: payer }]);
  });

  it('moves the msat and the RGB asset of an asset invoice', async () => {
    const [payer, payee] = [await pg.wallet(), await pg.wallet()];
    await fundBtc(payer, 4_000_000n);
    await pg.ledger.recordReceived({
      walletId: payer,
      kind: 'invoice',
      amountMsat: 0n,
      assetId: 'rgb:asset',
      assetAmount: 50n,
    });
    const inv = await invoice(payee, 3_000_000n, { assetId: 'rgb:asset', assetAmount: 20n });
    await pg.ledger.payInvoiceInternally({ payerWalletId: payer, paymentHash: inv.paymentHash! });
    const rgb = (balances: Balance[]) => balances.find((b) => b.assetKind === 'rgb')?.amount;
    expect(await pg.ledger.btcBalanceMsat(payer)).toBe(1_000_000n);
    expect(rgb(await pg.ledger.balances(payer))).toBe(30n);
    expect(await pg.ledger.btcBalanceMsat(payee)).toBe(3_000_000n);
    expect(rgb(await pg.ledger.balances(payee))).toBe(20n);
  });

  it('refuses, changing nothing: short of msat or of the asset, own invoice, paid, expired, archived wallet', async () => {
    const [payer, payee, archived] = [await pg.wallet(), await pg.wallet(), await pg.wallet()];
    await fundBtc(payer, 1_000_000n);
    const pay = (walletId: string, invoice: { paymentHash: string | null }) =>
      pg.ledger.payInvoiceInternally({ payerWalletId: walletId, paymentHash: invoice.paymentHash! });
    const before = await snapshot(payer, payee);

    const tooBig = await invoice(payee, 2_000_000n);
    await expect(pay(payer, tooBig)).rejects.toMatchObject({
      code: 'INSUFFICIENT_FUNDS',
      message: expect.stringContaining('2000000 msat'),
    });
    const assetShort = await invoice(payee, 500_000n, { assetId: 'rgb:none', assetAmount: 1n });
    expect(await code(pay(payer, assetShort))).toBe('INSUFFICIENT_FUNDS');
    expect(await code(pay(payee, tooBig))).toBe('SELF_PAYMENT');
    const expired = await invoice(payee, 1_000n, { expiresAt: new Date(Date.now() - 1000) });
    expect(await code(pay(payer, expired))).toBe('INVOICE_EXPIRED');
    const archivedInvoice = await invoice(archived, 1_000n);
    await pg.db.transaction((tx) => archiveWallet(tx, archived));
    expect(await code(pay(payer, archivedInvoice))).toBe('WALLET_ARCHIVED');
    // no invoice of this server has the hash: left to the node, nothing paid here
    expect(await pay(payer, { paymentHash: hash() })).toBeNull();

    const created = 4; // the four invoices above
    const after = await snapshot(payer, payee);
    expect({ ...after, payments: String(Number(after.payments) - created) }).toEqual(before);

    // an incoming payment of the hash that is no invoice (a keysend received) is not paid internally either
    const keysend = await pg.ledger.recordReceived({
      walletId: payee,
      kind: 'keysend',
      amountMsat: 1_000n,
      paymentHash: hash(),
    });
    expect(await pay(payer, keysend)).toBeNull();
    expect(await pg.ledger.btcBalanceMsat(payer)).toBe(1_000_000n);
  });

  it('lets exactly one of ten concurrent payers pay one invoice', async () => {
    const payee = await pg.wallet();
    const payers = await Promise.all(Array.from({ length: 10 }, () => pg.wallet()));
    await Promise.all(payers.map((p) => fundBtc(p, 1_000_000n)));
    const inv = await invoice(payee, 700_000n);
    const results = await Promise.all(
      payers.map((p) => code(pg.ledger.payInvoiceInternally({ payerWalletId: p, paymentHash: inv.paymentHash! }))),
    );
    expect(results.filter((r) => r === 'paid')).toHaveLength(1);
    expect(results.filter((r) => r === 'INVOICE_ALREADY_PAID')).toHaveLength(9);
    expect(await pg.ledger.btcBalanceMsat(payee)).toBe(700_000n);
    const balances = await Promise.all(payers.map((p) => pg.ledger.btcBalanceMsat(p)));
    expect(balances.reduce((a, b) => a + b, 0n)).toBe(10n * 1_000_000n - 700_000n);
  });
});
