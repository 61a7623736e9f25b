// Invoices this server issues, and their settlement: a node invoice that is paid credits its
// wallet exactly once (ledger.settleIncoming is idempotent per payment, and a hash has one invoice
// record). The node's push stream (lnd, LDK) triggers it at once, and after a break delivers what was
// settled meanwhile; a periodic reconcile of every pending invoice against the node (also run at start,
// and when the stream fell silent) catches what was settled while the server was down.
import type { FastifyBaseLogger } from 'fastify';
import type { AssetAmount, LightningClient, StreamReopenReason } from '../../../../lib/lightning/client.js';
import type { AuditEvent } from '../audit/audit.js';
import { invalid } from '../errors.js';
import type { Ledger, Payment } from '../ledger/index.js';
import { nodeCall } from './node-call.js';
import { RGB_MIN_MSAT } from './rules.js';

export interface NewInvoice {
  walletId: string;
  amountMsat: bigint;
  expirySec: number;
  description?: string;
  descriptionHash?: string;
  asset?: AssetAmount;
}

export class IncomingInvoices {
  private stopWatching: (() => void) | null = null;
  private reconciling: Promise<void> | null = null;

  constructor(
    private readonly node: LightningClient,
    private readonly ledger: Ledger,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The node's invoice, then its record (with `audit`, its audit event in the same statement). */
  async create(input: NewInvoice, audit?: AuditEvent): Promise<Payment> {
    if (input.asset) {
      if (!this.node.assets) {
        throw invalid(
          'ASSETS_NEED_RGB_NODE',
          `asset_id/asset_amount need an RGB Lightning Node (NODE_KIND=rln); this server runs on ${this.node.implementation}`,
        );
      }
      if (input.amountMsat < RGB_MIN_MSAT) {
        throw invalid(
          'RGB_AMOUNT_TOO_LOW',
          `an RGB invoice needs amount_msat >= ${RGB_MIN_MSAT} (the RGB HTLC minimum)`,
        );
      }
    }
    // refused before the node is asked, so a refusal leaves no invoice there
    await this.ledger.checkCanReceive(input.walletId);
    const inv = await nodeCall(this.node.implementation, () => this.node.createInvoice(input));
    return this.ledger.createIncoming(
      {
        walletId: input.walletId,
        kind: 'invoice',
        amountMsat: input.amountMsat,
        paymentHash: inv.paymentHash,
        bolt11: inv.bolt11,
        description: input.description ?? null,
        expiresAt: inv.expiresAt,
        assetId: input.asset?.assetId ?? null,
        assetAmount: input.asset?.amount ?? null,
      },
      audit,
    );
  }

  /** Brings one pending invoice up to date with the node; returns the record as it now is. */
  async refresh(p: Payment): Promise<Payment> {
    if (p.status !== 'pending' || p.direction !== 'in' || p.kind !== 'invoice' || !p.paymentHash) return p;
    const invoice = await nodeCall(this.node.implementation, () =>
      this.node.invoice(p.paymentHash!, p.bolt11 ?? undefined),
    );
    if (invoice?.state === 'settled') {
      const settled = await this.ledger.settleIncoming(p.id, {
        receivedMsat: invoice.receivedMsat,
        preimage: invoice.preimage ?? null,
      });
      this.log.info(
        { paymentId: p.id, walletId: p.walletId, msat: invoice.receivedMsat.toString() },
        'invoice settled',
      );
      return settled;
    }
    if (invoice?.state === 'canceled')
      return this.ledger.failIncoming(p.id, 'the invoice expired or was cancelled on the node');
    return p;
  }

  private async onSettled(paymentHash: string): Promise<void> {
    const p = await this.ledger.findByHash(paymentHash, undefined, 'in');
    if (p) await this.refresh(p);
  }

  /** A broken stream is opened again from its last settlement, and breaks every second while the node
   * is down (not worth a warning each time); what a silent stream missed is found by a reconcile. */
  private onStreamReopened(reason: StreamReopenReason): void {
    if (reason === 'broken') return this.log.debug("the node's invoice stream broke; opened again");
    this.log.warn(
      "the node's invoice stream fell silent (an invoice added was not announced); opened again, reconciling",
    );
    this.reconcile().catch((err) => this.log.warn({ err }, 'invoice reconcile failed'));
  }

  /** Every pending invoice against the node, one after another. */
  reconcile(): Promise<void> {
    this.reconciling ??= (async () => {
      try {
        for (const p of await this.ledger.pendingIncoming()) {
          await this.refresh(p).catch((err) => this.log.warn({ err, paymentId: p.id }, 'invoice reconcile failed'));
        }
      } finally {
        this.reconciling = null;
      }
    })();
    return this.reconciling;
  }

  async start(): Promise<void> {
    this.stopWatching =
      this.node.watchSettledInvoices?.(
        (hash) => {
          this.onSettled(hash).catch((err) =>
            this.log.warn({ err, paymentHash: hash }, 'invoice settlement failed; the reconcile retries'),
          );
        },
        (reason) => this.onStreamReopened(reason),
      ) ?? null;
    await this.reconcile().catch((err) =>
      this.log.warn({ err }, 'start-up invoice reconcile failed; retrying on the timer'),
    );
  }

  async stop(): Promise<void> {
    this.stopWatching?.();
    await this.reconciling?.catch(() => undefined);
  }
}
