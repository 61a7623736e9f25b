// The ledger is the truth: every balance change is one row in ledger_entries written in the same
// transaction as the balance update, and a debit is a conditional UPDATE (amount + delta >= 0), so
// concurrent spends serialise on the balance row and can never overdraw it.
import { sqlState, type Db, type Queryable } from '../db/db.js';
import { recordAudit, type AuditEvent } from '../audit/audit.js';
import { invalid, conflict, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { PAYMENT_COLUMNS, toPayment, type PaymentRow } from './rows.js';
import type { Asset, Balance, Payment } from './types.js';

export type EntryReason = 'reserve' | 'settle' | 'refund' | 'credit' | 'transfer_out' | 'transfer_in';

const BTC: Asset = { kind: 'btc' };
const assetIdOf = (a: Asset) => (a.kind === 'btc' ? '' : a.assetId);

export const insufficientFunds = (what: string) =>
  invalid('INSUFFICIENT_FUNDS', `insufficient balance: ${what}; fund the wallet or send less`);

/** Adds delta to a balance and writes its ledger entry in one statement. Returns false (and changes
 * nothing) when the balance would go negative. */
async function applyDelta(
  tx: Queryable,
  walletId: string,
  asset: Asset,
  delta: bigint,
  paymentId: string | null,
  reason: EntryReason,
): Promise<boolean> {
  const change =
    delta >= 0n
      ? `insert into balances (wallet_id, asset_kind, asset_id, amount) values ($1, $2, $3, $4)
       on conflict (wallet_id, asset_kind, asset_id) do update set amount = balances.amount + excluded.amount
       returning amount`
      : `update balances set amount = amount + $4
       where wallet_id = $1 and asset_kind = $2 and asset_id = $3 and amount + $4 >= 0 returning amount`;
  const { rowCount } = await tx.query(
    `with b as (${change})
     insert into ledger_entries (id, wallet_id, asset_kind, asset_id, delta, balance_after, payment_id, reason)
     select $5, $1, $2, $3, $4, b.amount, $6, $7 from b`,
    [walletId, asset.kind, assetIdOf(asset), delta.toString(), newId(), paymentId, reason],
  );
  return rowCount === 1;
}

/** Maps the errors ledger_transfer raises (SQLSTATE P0001, code as message, wallet id as detail). */
function transferError(err: unknown, amount: bigint, asset: Asset): unknown {
  if (sqlState(err) !== 'P0001') return err;
  const { message, detail } = err as { message: string; detail?: string };
  if (message === 'WALLET_NOT_FOUND') return notFound(`wallet ${detail}`);
  if (message === 'WALLET_ARCHIVED')
    return invalid('WALLET_ARCHIVED', `wallet ${detail} is archived; use an active wallet`);
  if (message === 'INSUFFICIENT_FUNDS') {
    return insufficientFunds(
      `wallet ${detail} has less than ${amount}${asset.kind === 'btc' ? ' msat' : ` of asset ${asset.assetId}`}`,
    );
  }
  return err;
}

/** Maps the errors ledger_pay_invoice raises (SQLSTATE P0001, code as message; see migration 6). */
function payInvoiceError(err: unknown): unknown {
  if (sqlState(err) !== 'P0001') return err;
  const { message, detail } = err as { message: string; detail?: string };
  switch (message) {
    case 'PAYMENT_NOT_FOUND':
      return notFound(`payment ${detail}`);
    case 'NOT_AN_INVOICE':
      return invalid('NOT_AN_INVOICE', `payment ${detail} is not an invoice`);
    case 'SELF_PAYMENT':
      return invalid('SELF_PAYMENT', 'this invoice was issued by the paying wallet itself; pay it from another wallet');
    case 'INVOICE_ALREADY_PAID':
      return invalid('INVOICE_ALREADY_PAID', 'this invoice is already paid');
    case 'INVOICE_EXPIRED':
      return invalid('INVOICE_EXPIRED', 'this invoice expired or was cancelled; ask the payee for a new one');
    case 'WALLET_NOT_FOUND':
      return notFound(`wallet ${detail}`);
    case 'WALLET_ARCHIVED':
      return invalid('WALLET_ARCHIVED', `wallet ${detail} is archived; use an active wallet`);
    case 'INSUFFICIENT_FUNDS':
      return insufficientFunds(`the invoice asks for ${detail}`);
    default:
      return err;
  }
}

/** An audit event as the JSON row the one-statement ledger functions insert. */
function auditRowJson(e: AuditEvent | undefined): string | null {
  if (!e) return null;
  return JSON.stringify({
    id: newId(),
    user_id: e.userId,
    action: e.action,
    target_type: e.targetType ?? null,
    target_id: e.targetId ?? null,
    details: e.details ?? null,
    ip: e.ip ?? null,
  });
}

/** Share-locks the wallets for the rest of the transaction (archiving takes them exclusively) and
 * checks they exist and are not archived. */
async function lockActiveWallets(tx: Queryable, walletIds: string[]): Promise<void> {
  const { rows } = await tx.query<{ id: string; archived: boolean }>(
    'select id::text, archived_at is not null as archived from wallets where id = any($1::uuid[]) order by id for share',
    [walletIds],
  );
  for (const id of walletIds) {
    const w = rows.find((r) => r.id === id);
    if (!w) throw notFound(`wallet ${id}`);
    if (w.archived) throw invalid('WALLET_ARCHIVED', `wallet ${id} is archived; use an active wallet`);
  }
}

interface NewPayment {
  /** Given when the caller needs it before the insert (an audit event naming it); new otherwise. */
  id?: string;
  walletId: string;
  direction: 'in' | 'out';
  kind: Payment['kind'];
  status: Payment['status'];
  paymentHash?: string | null;
  bolt11?: string | null;
  preimage?: string | null;
  destPubkey?: string | null;
  description?: string | null;
  amountMsat?: bigint;
  feeLimitMsat?: bigint;
  assetId?: string | null;
  assetAmount?: bigint | null;
  transferId?: string | null;
  counterpartyWalletId?: string | null;
  expiresAt?: Date | null;
}

/** Inserts payments, and with `audit` its audit row (auditRowJson) in the same statement. */
async function insertPayments(tx: Queryable, payments: NewPayment[], audit: string | null = null): Promise<Payment[]> {
  const cols = 17;
  const values: unknown[] = [];
  const tuples = payments.map((p, i) => {
    values.push(
      p.id ?? newId(),
      p.walletId,
      p.direction,
      p.kind,
      p.status,
      p.paymentHash ?? null,
      p.bolt11 ?? null,
      p.preimage ?? null,
      p.destPubkey ?? null,
      p.description ?? null,
      (p.amountMsat ?? 0n).toString(),
      (p.feeLimitMsat ?? 0n).toString(),
      p.assetId ?? null,
      p.assetAmount?.toString() ?? null,
      p.transferId ?? null,
      p.counterpartyWalletId ?? null,
      p.expiresAt ?? null,
    );
    const n = (k: number) => `$${i * cols + k}`;
    return `(${n(1)}::uuid, ${n(2)}::uuid, ${n(3)}, ${n(4)}, ${n(5)}, ${n(6)}, ${n(7)}, ${n(8)}, ${n(9)}, ${n(10)},
      ${n(11)}::bigint, ${n(12)}::bigint, ${n(13)}, ${n(14)}::numeric, ${n(15)}::uuid, ${n(16)}::uuid, ${n(17)}::timestamptz,
      case when ${n(5)} = 'pending' then null else now() end)`;
  });
  // a data-modifying WITH runs whether or not the query reads it
  const audited =
    audit === null
      ? ''
      : `, audited as (
       insert into audit_log (id, user_id, action, target_type, target_id, details, ip)
       select (a->>'id')::uuid, (a->>'user_id')::uuid, a->>'action', a->>'target_type', a->>'target_id', a->'details', a->>'ip'
       from (select $${values.push(audit)}::jsonb as a) event)`;
  const { rows } = await tx.query<PaymentRow>(
    `with inserted as (
       insert into payments (id, wallet_id, direction, kind, status, payment_hash, bolt11, preimage, dest_pubkey,
         description, amount_msat, fee_limit_msat, asset_id, asset_amount, transfer_id, counterparty_wallet_id,
         expires_at, settled_at)
       values ${tuples.join(', ')} returning ${PAYMENT_COLUMNS})${audited}
     select * from inserted`,
    values,
  );
  return rows.map(toPayment);
}

async function lockPayment(tx: Queryable, id: string): Promise<Payment> {
  const { rows } = await tx.query<PaymentRow>(`select ${PAYMENT_COLUMNS} from payments where id = $1 for update`, [id]);
  if (!rows[0]) throw notFound(`payment ${id}`);
  return toPayment(rows[0]);
}

async function finish(
  tx: Queryable,
  id: string,
  fields: {
    status: 'succeeded' | 'failed';
    feeMsat?: bigint;
    preimage?: string | null;
    error?: string | null;
    amountMsat?: bigint;
  },
): Promise<Payment> {
  const { rows } = await tx.query<PaymentRow>(
    `update payments set status = $2, fee_msat = coalesce($3::bigint, fee_msat), preimage = coalesce($4, preimage),
       error = $5, amount_msat = coalesce($6::bigint, amount_msat), updated_at = now(), settled_at = now()
     where id = $1 returning ${PAYMENT_COLUMNS}`,
    [
      id,
      fields.status,
      fields.feeMsat?.toString() ?? null,
      fields.preimage ?? null,
      fields.error ?? null,
      fields.amountMsat?.toString() ?? null,
    ],
  );
  return toPayment(rows[0]!);
}

export interface ReserveOutgoingInput {
  walletId: string;
  kind: 'pay' | 'keysend';
  amountMsat: bigint;
  /** Most fee the node may spend; reserved now, the unused part refunded on settle. */
  feeLimitMsat: bigint;
  paymentHash?: string | null;
  bolt11?: string | null;
  destPubkey?: string | null;
  description?: string | null;
  audit?: AuditEvent;
}

export interface IncomingInput {
  walletId: string;
  kind: 'invoice' | 'keysend';
  amountMsat: bigint;
  paymentHash?: string | null;
  bolt11?: string | null;
  preimage?: string | null;
  description?: string | null;
  expiresAt?: Date | null;
  assetId?: string | null;
  assetAmount?: bigint | null;
}

export interface TransferInput {
  fromWalletId: string;
  toWalletId: string;
  /** When set, both wallets must belong to this user (else 404, as for a missing wallet). */
  ownerId?: string | null;
  asset: Asset;
  amount: bigint;
  audit?: AuditEvent;
}

export interface Transfer {
  transferId: string;
  out: Payment;
  in: Payment;
}

export class Ledger {
  constructor(private readonly db: Db) {}

  /** Every balance of the wallet; btc is always present (0 when never funded). */
  async balances(walletId: string): Promise<Balance[]> {
    return (await this.balancesOf([walletId])).get(walletId)!;
  }

  /** Balances of several wallets in one query, keyed by wallet id. */
  async balancesOf(walletIds: string[]): Promise<Map<string, Balance[]>> {
    const { rows } = await this.db.query<{
      wallet_id: string;
      asset_kind: 'btc' | 'rgb';
      asset_id: string;
      amount: string;
    }>(
      `select wallet_id::text, asset_kind, asset_id, amount::text from balances where wallet_id = any($1::uuid[])
       order by wallet_id, asset_kind, asset_id`,
      [walletIds],
    );
    const byWallet = new Map<string, Balance[]>(walletIds.map((id) => [id, []]));
    for (const r of rows)
      byWallet.get(r.wallet_id)?.push({ assetKind: r.asset_kind, assetId: r.asset_id, amount: BigInt(r.amount) });
    for (const list of byWallet.values()) {
      if (!list.some((b) => b.assetKind === 'btc')) list.unshift({ assetKind: 'btc', assetId: '', amount: 0n });
    }
    return byWallet;
  }

  async btcBalanceMsat(walletId: string): Promise<bigint> {
    return (await this.balances(walletId)).find((b) => b.assetKind === 'btc')!.amount;
  }

  /** Creates a pending outgoing payment and debits amount + fee limit, or throws INSUFFICIENT_FUNDS
   * (400) having changed nothing. Call before handing the payment to the node. */
  reserveOutgoing(input: ReserveOutgoingInput): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      await lockActiveWallets(tx, [input.walletId]);
      const [payment] = await insertPayments(tx, [{ ...input, direction: 'out', status: 'pending' }]);
      const ok = await applyDelta(
        tx,
        input.walletId,
        BTC,
        -(input.amountMsat + input.feeLimitMsat),
        payment!.id,
        'reserve',
      );
      if (!ok) throw insufficientFunds(`${input.amountMsat} msat plus up to ${input.feeLimitMsat} msat fee`);
      if (input.audit) await recordAudit(tx, input.audit);
      return payment!;
    });
  }

  /** The node reports success: marks succeeded and refunds the unused fee reservation.
   * Idempotent for an already succeeded payment; 409 for a failed one. feeMsat must be <= fee limit. */
  settleOutgoing(paymentId: string, result: { feeMsat: bigint; preimage?: string | null }): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const p = await lockPayment(tx, paymentId);
      if (p.direction !== 'out') throw invalid('NOT_OUTGOING', `payment ${paymentId} is not outgoing`);
      if (p.status === 'succeeded') return p;
      if (p.status === 'failed')
        throw conflict('PAYMENT_ALREADY_FAILED', `payment ${paymentId} was already refunded as failed`);
      if (result.feeMsat > p.feeLimitMsat) {
        throw new Error(`the node charged a fee of ${result.feeMsat} msat, above ${p.feeLimitMsat} msat`);
      }
      const unused = p.feeLimitMsat - result.feeMsat;
      if (unused > 0n) await applyDelta(tx, p.walletId, BTC, unused, p.id, 'settle');
      return finish(tx, p.id, { status: 'succeeded', feeMsat: result.feeMsat, preimage: result.preimage });
    });
  }

  /** The node reports final failure: marks failed and refunds the whole reservation. Idempotent for a
   * failed payment; 409 for a succeeded one. */
  failOutgoing(paymentId: string, error: string): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const p = await lockPayment(tx, paymentId);
      if (p.direction !== 'out') throw invalid('NOT_OUTGOING', `payment ${paymentId} is not outgoing`);
      if (p.status === 'failed') return p;
      if (p.status === 'succeeded')
        throw conflict('PAYMENT_ALREADY_SUCCEEDED', `payment ${paymentId} already succeeded`);
      await applyDelta(tx, p.walletId, BTC, p.amountMsat + p.feeLimitMsat, p.id, 'refund');
      return finish(tx, p.id, { status: 'failed', error });
    });
  }

  /** 404 for an unknown wallet, 400 WALLET_ARCHIVED for an archived one: what it receives could
   * never be spent (an archived wallet is not debited, nor reactivated). */
  async checkCanReceive(walletId: string): Promise<void> {
    await lockActiveWallets(this.db, [walletId]);
  }

  /** Records an invoice we issued: pending, no balance change until settleIncoming. Its audit
   * event (the payment's id added to its details) is written in the same statement. The wallet is
   * share-locked and checked as checkCanReceive does, so an invoice is either recorded before its
   * wallet is archived or refused. */
  createIncoming(input: IncomingInput, audit?: AuditEvent): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      await lockActiveWallets(tx, [input.walletId]);
      const id = newId();
      const event = audit && { ...audit, details: { payment_id: id, ...audit.details } };
      const [p] = await insertPayments(tx, [{ ...input, id, direction: 'in', status: 'pending' }], auditRowJson(event));
      return p!;
    });
  }

  /** The node reports the invoice paid: marks succeeded and credits receivedMsat (default: the
   * invoice amount; pass the real amount for zero-amount invoices) plus the RGB asset amount if any.
   * Idempotent: a second call returns the payment unchanged. */
  settleIncoming(
    paymentId: string,
    result: { receivedMsat?: bigint; preimage?: string | null } = {},
  ): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const p = await lockPayment(tx, paymentId);
      if (p.direction !== 'in') throw invalid('NOT_INCOMING', `payment ${paymentId} is not incoming`);
      if (p.status === 'succeeded') return p;
      const received = result.receivedMsat ?? p.amountMsat;
      await this.creditLegs(tx, p.walletId, p.id, received, p.assetId, p.assetAmount);
      return finish(tx, p.id, { status: 'succeeded', preimage: result.preimage, amountMsat: received });
    });
  }

  /** An issued invoice expired or was cancelled. No balance change. Idempotent. */
  failIncoming(paymentId: string, error: string): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const p = await lockPayment(tx, paymentId);
      if (p.status !== 'pending') return p;
      return finish(tx, p.id, { status: 'failed', error });
    });
  }

  /** A payment that arrived without a prior record (a keysend received, a funding credit): creates
   * the succeeded incoming payment and credits it in one transaction. */
  recordReceived(input: IncomingInput): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const [p] = await insertPayments(tx, [{ ...input, direction: 'in', status: 'succeeded' }]);
      await this.creditLegs(tx, p!.walletId, p!.id, p!.amountMsat, p!.assetId, p!.assetAmount);
      return p!;
    });
  }

  private async creditLegs(
    tx: Queryable,
    walletId: string,
    paymentId: string,
    msat: bigint,
    assetId: string | null,
    assetAmount: bigint | null,
  ) {
    if (msat > 0n) await applyDelta(tx, walletId, BTC, msat, paymentId, 'credit');
    if (assetId && assetAmount && assetAmount > 0n) {
      await applyDelta(tx, walletId, { kind: 'rgb', assetId }, assetAmount, paymentId, 'credit');
    }
  }

  /** Moves an amount between two wallets: two payments (out and in, one transfer_id) and two
   * entries, or INSUFFICIENT_FUNDS (400) and nothing changed. Ownership is the caller's check. */
  async transferInternal(input: TransferInput): Promise<Transfer> {
    const { fromWalletId: from, toWalletId: to, asset, amount } = input;
    if (from === to) throw invalid('SAME_WALLET', 'from_wallet_id and to_wallet_id must differ');
    if (amount <= 0n) throw invalid('INVALID_AMOUNT', 'a transfer amount must be greater than 0');
    const transferId = newId();
    const audit = auditRowJson(input.audit);
    try {
      // One statement (the ledger_transfer function, migrations 3 and 4), so one round trip.
      const { rows } = await this.db.query<PaymentRow>(
        `select ${PAYMENT_COLUMNS} from ledger_transfer($1, $2, $3, $4, $5, $6, $7::uuid[], $8::jsonb)`,
        [
          from,
          to,
          input.ownerId ?? null,
          asset.kind,
          assetIdOf(asset),
          amount.toString(),
          [newId(), newId(), transferId, newId(), newId()],
          audit,
        ],
      );
      const [out, inn] = rows.map(toPayment);
      return { transferId, out: out!, in: inn! };
    } catch (err) {
      throw transferError(err, amount, asset);
    }
  }

  /** Pays the invoice of `paymentHash` without the node when another wallet of this server issued
   * it (the newest incoming payment of that hash is an invoice): the payer's out payment (kind 'pay',
   * succeeded, no fee), the invoice's credit and a node_invoice_cancels row (its node invoice is to
   * be cancelled), in one statement (ledger_pay_invoice, migration 6). Null when this server issued
   * no invoice of that hash: it is paid through the node. 400 for the payee's own wallet, a paid,
   * failed or expired invoice, or insufficient funds. */
  async payInvoiceInternally(input: {
    payerWalletId: string;
    paymentHash: string;
    audit?: AuditEvent;
  }): Promise<Transfer | null> {
    const transferId = newId();
    try {
      // the filter on the newest payment applies before the join, so the function runs only for an invoice
      const { rows } = await this.db.query<PaymentRow>(
        `select ${PAYMENT_COLUMNS} from (
           select paid.* from (select id, kind from payments where payment_hash = $2 and direction = 'in' order by id desc limit 1) newest
           cross join lateral ledger_pay_invoice($1, newest.id, $3::uuid[], $4::jsonb) paid
           where newest.kind = 'invoice') paid`,
        [
          input.payerWalletId,
          input.paymentHash,
          [newId(), transferId, newId(), newId(), newId(), newId()],
          auditRowJson(input.audit),
        ],
      );
      if (rows.length === 0) return null;
      const [out, paid] = rows.map(toPayment);
      return { transferId, out: out!, in: paid! };
    } catch (err) {
      throw payInvoiceError(err);
    }
  }

  /** Records the hash of an outgoing payment whose node chose it after it was reserved (an RLN
   * keysend picks its own preimage). No balance change; a hash already set is kept. */
  async setOutgoingHash(paymentId: string, paymentHash: string): Promise<Payment> {
    const { rows } = await this.db.query<PaymentRow>(
      `update payments set payment_hash = coalesce(payment_hash, $2), updated_at = now()
       where id = $1 and direction = 'out' returning ${PAYMENT_COLUMNS}`,
      [paymentId, paymentHash],
    );
    if (!rows[0]) throw notFound(`outgoing payment ${paymentId}`);
    return toPayment(rows[0]);
  }

  async getPayment(id: string, walletId: string): Promise<Payment | null> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where id = $1 and wallet_id = $2`,
      [id, walletId],
    );
    return rows[0] ? toPayment(rows[0]) : null;
  }

  /** The two payments of an internal transfer (or of an invoice paid internally), null when no
   * payment has that transfer id. */
  async getTransfer(transferId: string): Promise<Transfer | null> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where transfer_id = $1 order by direction desc`,
      [transferId],
    );
    const [out, inn] = rows.map(toPayment);
    return out && inn ? { transferId, out, in: inn } : null;
  }

  /** Newest first; direction narrows it (an internal transfer between two wallets has both). */
  async findByHash(paymentHash: string, walletId?: string, direction?: 'in' | 'out'): Promise<Payment | null> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where payment_hash = $1 and ($2::uuid is null or wallet_id = $2)
         and ($3::text is null or direction = $3) order by id desc limit 1`,
      [paymentHash, walletId ?? null, direction ?? null],
    );
    return rows[0] ? toPayment(rows[0]) : null;
  }

  /** Cursor page of a wallet's payments: ids (as text) below `before`, newest first. */
  async listPayments(walletId: string, page: { before?: string; limit: number }): Promise<Payment[]> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where wallet_id = $1 and ($2::text is null or id::text < $2)
       order by id desc limit $3`,
      [walletId, page.before ?? null, page.limit],
    );
    return rows.map(toPayment);
  }

  /** Outgoing payments still reserved: on start-up, ask the node for each one's final state. */
  async pendingOutgoing(): Promise<Payment[]> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where status = 'pending' and direction = 'out' order by id`,
    );
    return rows.map(toPayment);
  }

  /** Incoming invoices not yet paid, expired or cancelled (to resubscribe after a restart). */
  async pendingIncoming(): Promise<Payment[]> {
    const { rows } = await this.db.query<PaymentRow>(
      `select ${PAYMENT_COLUMNS} from payments where status = 'pending' and direction = 'in' order by id`,
    );
    return rows.map(toPayment);
  }
}
