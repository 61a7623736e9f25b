// Outgoing payments: reserve amount + fee limit in the ledger, hand the payment to the node, then
// settle (charge the real fee, refund the rest) or refund from the node's final answer. A payment
// the node certainly never took (refused, or never reached) is refunded at once; one it may have
// taken (killed mid-payment, broken stream) stays 'pending' with its funds reserved until the node
// is asked again: at start and on every reconcile tick, which refunds one the node still does not
// know once the grace has passed.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { LightningClient, PaymentLookup, PaymentOutcome } from '../../../../lib/lightning/client.js';
import { LightningError, LightningUnreachable } from '../../../../lib/lightning/errors.js';
import type { AuditEvent } from '../audit/audit.js';
import type { Network } from '../config.js';
import { DependencyError, sqlState } from '../db/db.js';
import { invalid } from '../errors.js';
import type { IdempotencyKeys, KeyClaim } from '../idempotency/keys.js';
import type { Ledger, Payment, ReserveOutgoingInput } from '../ledger/index.js';
import { decodeBolt11 } from './bolt11.js';
import type { NodeInvoiceCancels } from './invoice-cancels.js';
import { nodeCall } from './node-call.js';
import { feeLimitMsat } from './rules.js';

export interface OutgoingOptions {
  network: Network;
  payWaitMs: number;
  /** A pending payment the node has no record of is refunded by the reconcile once it is this old,
   * so a payment being handed to the node right now is never mistaken for one that never left. */
  unknownGraceMs: number;
}

export class OutgoingPayments {
  /** Payments this process is sending or following: the reconcile does not follow them a second time. */
  private readonly inFlight = new Set<string>();
  private nodePubkey: string | null = null;
  private stopped = false;

  constructor(
    private readonly node: LightningClient,
    private readonly ledger: Ledger,
    private readonly cancels: NodeInvoiceCancels,
    private readonly keys: IdempotencyKeys,
    private readonly log: FastifyBaseLogger,
    private readonly options: OutgoingOptions,
  ) {}

  /** Pays a BOLT11 invoice from a wallet. An invoice of another wallet here is paid internally.
   * With a key claim, the payment takes the key (IdempotencyKeys.record). */
  async payInvoice(walletId: string, bolt11: string, audit: AuditEvent, claim?: KeyClaim): Promise<Payment> {
    const inv = decodeBolt11(bolt11, this.options.network);
    const invoice = inv.invoice;
    const amountMsat = inv.amountMsat;
    if (!amountMsat)
      throw invalid('AMOUNT_REQUIRED', 'the invoice has no amount; this server pays only invoices that name one');
    if (inv.expiresAt.getTime() <= Date.now())
      throw invalid('INVOICE_EXPIRED', 'the invoice has expired; ask the payee for a new one');
    const fee = feeLimitMsat(amountMsat);
    const made = await this.keys.record(
      claim,
      async (ledger) => {
        const internal = await this.payInternally(ledger, walletId, inv.paymentHash, audit);
        if (internal) return { payment: internal, toNode: false };
        await this.refuseAssetInvoice(invoice);
        const reserved = await this.reserve(ledger, {
          walletId,
          kind: 'pay',
          amountMsat,
          feeLimitMsat: fee,
          paymentHash: inv.paymentHash,
          bolt11: invoice,
          description: inv.description,
          audit,
        });
        return { payment: reserved, toNode: true };
      },
      (m) => m.payment.id,
    );
    if (!made.toNode) {
      // its node invoice is to be cancelled, now that the internal payment is committed
      this.cancels.wake();
      return made.payment;
    }
    return this.send(made.payment, () => this.node.pay({ bolt11: invoice, maxFeeMsat: fee }));
  }

  async keysend(
    walletId: string,
    destPubkey: string,
    amountMsat: bigint,
    audit: AuditEvent,
    claim?: KeyClaim,
  ): Promise<Payment> {
    if (amountMsat <= 0n) throw invalid('INVALID_AMOUNT', 'amount_msat must be greater than 0');
    if (destPubkey.toLowerCase() === (await this.ownPubkey())) {
      throw invalid(
        'KEYSEND_TO_SELF',
        "dest_pubkey is this server's own node; to pay another wallet here use POST /payments/internal",
      );
    }
    const preimage = randomBytes(32).toString('hex');
    const fee = feeLimitMsat(amountMsat);
    const p = await this.keys.record(
      claim,
      (ledger) =>
        this.reserve(ledger, {
          walletId,
          kind: 'keysend',
          amountMsat,
          feeLimitMsat: fee,
          destPubkey: destPubkey.toLowerCase(),
          paymentHash: this.node.capabilities.keysendPreimage
            ? createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
            : null,
          audit,
        }),
      (reserved) => reserved.id,
    );
    return this.send(p, () =>
      this.node.keysend({ pubkey: destPubkey.toLowerCase(), amountMsat, maxFeeMsat: fee, preimage }),
    );
  }

  private async ownPubkey(): Promise<string> {
    this.nodePubkey ??= (await nodeCall(this.node.implementation, () => this.node.info())).pubkey.toLowerCase();
    return this.nodePubkey;
  }

  /** An RGB invoice of another node is not paid (the ledger does not reserve asset amounts). */
  private async refuseAssetInvoice(invoice: string): Promise<void> {
    if (!this.node.assets) return;
    const decoded = await nodeCall(this.node.implementation, () => this.node.decodeInvoice(invoice));
    if (decoded.asset)
      throw invalid(
        'RGB_PAY_UNSUPPORTED',
        'paying RGB asset invoices to other nodes is not supported yet; only BTC invoices',
      );
  }

  private async reserve(ledger: Ledger, input: ReserveOutgoingInput): Promise<Payment> {
    try {
      return await ledger.reserveOutgoing(input);
    } catch (err) {
      if (sqlState(err) === '23505')
        throw invalid('ALREADY_PAYING', 'this invoice is already paid or being paid from this server');
      throw err;
    }
  }

  /** An invoice another wallet here issued is settled in the ledger alone: the node is not asked;
   * null for any other invoice. An invoice paid on the node from outside that the server has not
   * seen yet, or paid there before its cancel lands, is credited to the payee as a second payment
   * (invoice-cancels.ts). */
  private async payInternally(
    ledger: Ledger,
    walletId: string,
    paymentHash: string,
    audit: AuditEvent,
  ): Promise<Payment | null> {
    const paid = await ledger.payInvoiceInternally({
      payerWalletId: walletId,
      paymentHash,
      audit: { ...audit, details: { ...audit.details, internal: true } },
    });
    return paid?.out ?? null;
  }

  /** Hands a reserved payment to the node and waits up to payWaitMs for the final answer; the
   * record is settled or refunded whenever the answer comes. A payment the node never took is
   * refunded before the answer: failed (200) when the node refused it, and a 502 when the node
   * could not be reached. */
  private async send(p: Payment, start: () => Promise<PaymentOutcome>): Promise<Payment> {
    this.inFlight.add(p.id);
    const done = this.handOver(p, start)
      .then(
        async (outcome) =>
          this.apply(
            outcome.paymentHash && !p.paymentHash ? await this.ledger.setOutgoingHash(p.id, outcome.paymentHash) : p,
            outcome,
          ),
        async (err) => {
          if (err instanceof LightningUnreachable) {
            await this.ledger.failOutgoing(p.id, err.message);
            throw new DependencyError(this.node.implementation, err);
          }
          // the node refused the caller's input: nothing was sent
          if (err instanceof LightningError && err.kind === 'invalid')
            return this.ledger.failOutgoing(p.id, err.message);
          this.log.warn({ err, paymentId: p.id }, 'sending failed without a final answer; asking the node');
          return this.follow(p);
        },
      )
      .finally(() => this.inFlight.delete(p.id));
    // Past the wait nobody awaits `done`: its failure (e.g. database down) is logged, and the
    // payment stays pending for the reconcile.
    done.catch((err) => {
      if (!(err instanceof DependencyError && err.cause instanceof LightningUnreachable))
        this.log.error({ err, paymentId: p.id }, 'recording the node answer failed; the reconcile retries');
    });
    const answered = await Promise.race([done, sleep(this.options.payWaitMs, null, { ref: false })]);
    return answered ?? (await this.ledger.getPayment(p.id, p.walletId))!;
  }

  /** start(), where a throw (rather than a rejection) means nothing was sent: a failed payment. */
  private handOver(p: Payment, start: () => Promise<PaymentOutcome>): Promise<PaymentOutcome> {
    try {
      return start();
    } catch (err) {
      this.log.error({ err, paymentId: p.id }, 'handing the payment to the node threw before anything was sent');
      return Promise.resolve({
        status: 'failed',
        paymentHash: p.paymentHash ?? '', // none known yet: the hash comes with the node's answer
        reason: `the payment was not handed to ${this.node.implementation}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }
  }

  private async apply(p: Payment, outcome: PaymentLookup): Promise<Payment> {
    switch (outcome.status) {
      case 'succeeded':
        return this.ledger.settleOutgoing(p.id, { feeMsat: outcome.feeMsat, preimage: outcome.preimage ?? null });
      case 'failed':
        return this.ledger.failOutgoing(p.id, outcome.reason);
      case 'unknown':
        return this.ledger.failOutgoing(p.id, 'the node never started this payment');
      case 'pending':
        return this.follow(p);
    }
  }

  /** Waits on the node for a payment it has in flight (e.g. to a hold invoice). */
  private async follow(p: Payment): Promise<Payment> {
    if (!p.paymentHash) {
      this.log.error(
        { paymentId: p.id },
        'pending payment without a payment hash: cannot ask the node; resolve it by hand',
      );
      return p;
    }
    this.inFlight.add(p.id);
    try {
      const answer = await this.node.awaitPayment(p.paymentHash);
      // Still pending only when the client is closing: the next start resolves it. Unknown to the
      // node: it may be about to record it; the reconcile refunds it once past the grace.
      return answer.status === 'pending' || answer.status === 'unknown' ? p : await this.apply(p, answer);
    } catch (err) {
      this.log.warn({ err, paymentId: p.id }, 'following a payment failed; the reconcile asks again');
      return p;
    } finally {
      this.inFlight.delete(p.id);
    }
  }

  /** Asks the node about every pending outgoing payment. A final answer is applied even to a
   * payment this process follows (applying is idempotent, and a stalled stream must not keep it
   * pending). "Unknown" refunds a payment once it is older than the grace, whoever is handing it
   * over: a hand-over that never ends must not hold the funds for ever. */
  async reconcile(atStart = false): Promise<void> {
    for (const p of await this.ledger.pendingOutgoing()) {
      if (this.stopped) return;
      if (!p.paymentHash) continue;
      try {
        const r = await this.node.payment(p.paymentHash);
        if (r.status === 'pending') {
          if (!this.inFlight.has(p.id)) this.follow(p).catch(() => undefined);
          continue;
        }
        if (r.status === 'unknown' && !atStart && Date.now() - p.createdAt.getTime() < this.options.unknownGraceMs)
          continue;
        const done = await this.apply(p, r);
        this.log.info({ paymentId: p.id, status: done.status }, 'pending payment resolved from the node');
      } catch (err) {
        this.log.warn({ err, paymentId: p.id }, 'could not resolve a pending payment; retrying later');
      }
    }
  }

  async start(): Promise<void> {
    await this.reconcile(true).catch((err) =>
      this.log.warn({ err }, 'start-up payment reconcile failed; retrying on the timer'),
    );
  }

  stop(): void {
    this.stopped = true;
  }
}
