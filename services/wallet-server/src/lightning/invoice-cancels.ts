// The node invoice of an internally paid invoice is cancelled here, off the request path. The
// internal payment writes a node_invoice_cancels row in its own transaction
// (ledger.payInvoiceInternally); this worker cancels each pending one on the node and closes the
// row with the node's final state: shortly after internal payments, on a timer, and at start
// (what a crash left). A node invoice someone outside paid before the cancel landed holds that
// payer's money on the node: it is credited to the payee as a second payment of the invoice, in
// the transaction that closes the row, so it is counted once and never lost.
import type { FastifyBaseLogger } from 'fastify';
import type { Invoice, LightningClient } from '../../../../lib/lightning/client.js';
import { joinTransaction, type Db } from '../db/db.js';
import { Ledger } from '../ledger/index.js';

interface PendingCancel {
  paymentHash: string;
  createdAt: Date;
  walletId: string;
  bolt11: string | null;
  description: string | null;
  assetId: string | null;
  assetAmount: bigint | null;
}

type Outcome = 'closed' | 'paid_on_node' | 'unknown_to_node';

const BATCH = 64;
/** How long a wake waits before its pass, so the internal payments of that moment share it (a
 * query or two for them all, not for each). */
const GATHER_MS = 50;
/** Node calls in flight at once: enough to keep up with internal payments, few enough to leave the
 * node to the invoices being created. */
const PARALLEL = 4;

export class NodeInvoiceCancels {
  private gathering: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private wokenWhileDraining = false;
  private stopped = false;
  /** The last pass failed (the node is down, say): only the timer retries, and the failure is
   * logged once, not at every internal payment. */
  private failing = false;

  constructor(
    private readonly node: LightningClient,
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Resumes what an earlier run left pending. */
  start(): void {
    this.pass();
  }

  /** The reconcile timer's pass: settles once the pass (or the one under way) is done; never rejects. */
  retry(): Promise<void> {
    this.pass();
    return this.draining ?? Promise.resolve();
  }

  /** After an internal payment: works through the pending cancels GATHER_MS later, or after the
   * pass under way (while the node is failing, the timer's next pass takes it). */
  wake(): void {
    if (this.failing || this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = null;
      this.pass();
    }, GATHER_MS);
    this.gathering.unref();
  }

  private pass(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.wokenWhileDraining = true;
      return;
    }
    this.draining = this.drain()
      .then(
        () => {
          if (this.failing) this.log.info('cancelling internally paid invoices on the node works again');
          this.failing = false;
        },
        (err) => {
          if (!this.failing)
            this.log.warn(
              { err },
              'cancelling internally paid invoices on the node failed; retrying every reconcile interval',
            );
          this.failing = true;
        },
      )
      .finally(() => {
        this.draining = null;
        if (this.wokenWhileDraining) {
          this.wokenWhileDraining = false;
          this.wake();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.gathering) clearTimeout(this.gathering);
    await this.draining;
  }

  /** One pass over the pending rows, oldest first; a row the node leaves open (it cannot cancel,
   * or did not answer) waits for the next pass. A node that fails ends the pass. */
  private async drain(): Promise<void> {
    let after: PendingCancel | null = null;
    while (!this.stopped) {
      const batch = await this.pending(after);
      for (let i = 0; i < batch.length && !this.stopped; i += PARALLEL) {
        const rows = batch.slice(i, i + PARALLEL);
        const answers = await Promise.allSettled(rows.map((row) => this.resolve(row)));
        await this.close(
          rows.flatMap((row, j) => {
            const answer = answers[j]!;
            return answer.status === 'fulfilled' && answer.value
              ? [{ paymentHash: row.paymentHash, outcome: answer.value }]
              : [];
          }),
        );
        const failed = answers.find((a) => a.status === 'rejected');
        if (failed) throw failed.reason;
      }
      if (batch.length < BATCH) return;
      after = batch.at(-1)!;
    }
  }

  private async pending(after: PendingCancel | null): Promise<PendingCancel[]> {
    const { rows } = await this.db.query<{
      payment_hash: string;
      created_at: Date;
      wallet_id: string;
      bolt11: string | null;
      description: string | null;
      asset_id: string | null;
      asset_amount: string | null;
    }>(
      `select c.payment_hash, c.created_at, p.wallet_id::text, p.bolt11, p.description, p.asset_id, p.asset_amount::text
       from node_invoice_cancels c join payments p on p.id = c.invoice_payment_id
       where c.done_at is null and ($1::timestamptz is null or (c.created_at, c.payment_hash) > ($1, $2))
       order by c.created_at, c.payment_hash limit ${BATCH}`,
      [after?.createdAt ?? null, after?.paymentHash ?? null],
    );
    return rows.map((r) => ({
      paymentHash: r.payment_hash,
      createdAt: r.created_at,
      walletId: r.wallet_id,
      bolt11: r.bolt11,
      description: r.description,
      assetId: r.asset_id,
      assetAmount: r.asset_amount === null ? null : BigInt(r.asset_amount),
    }));
  }

  /** Asks the node to cancel and reads its final state: the outcome to close the row with, or null
   * when the row stays pending (the node left the invoice open) or is closed already (paid on the
   * node: closed with its credit). */
  private async resolve(row: PendingCancel): Promise<Exclude<Outcome, 'paid_on_node'> | null> {
    if (this.node.cancelInvoice) {
      try {
        await this.node.cancelInvoice(row.paymentHash);
        return 'closed';
      } catch {
        // Already settled, or the node did not answer: its state below tells which.
      }
    }
    const invoice = await this.node.invoice(row.paymentHash, row.bolt11 ?? undefined);
    if (invoice === undefined) return 'unknown_to_node';
    if (invoice.state === 'canceled') return 'closed';
    if (invoice.state === 'settled') await this.creditNodePayment(row, invoice);
    return null;
  }

  /** Closes rows in one statement. */
  private async close(rows: Array<{ paymentHash: string; outcome: Outcome }>): Promise<void> {
    if (rows.length === 0) return;
    await this.db.query(
      `update node_invoice_cancels c set done_at = now(), outcome = closed.outcome
       from unnest($1::text[], $2::text[]) as closed(payment_hash, outcome)
       where c.payment_hash = closed.payment_hash and c.done_at is null`,
      [rows.map((r) => r.paymentHash), rows.map((r) => r.outcome)],
    );
  }

  private async creditNodePayment(row: PendingCancel, settled: Invoice): Promise<void> {
    const credited = await this.db.transaction(async (tx) => {
      const { rowCount } = await tx.query(
        `update node_invoice_cancels set done_at = now(), outcome = 'paid_on_node' where payment_hash = $1 and done_at is null`,
        [row.paymentHash],
      );
      if (rowCount === 0) return null; // closed meanwhile by another pass or process
      return new Ledger(joinTransaction(tx, this.db.kind)).recordReceived({
        walletId: row.walletId,
        kind: 'invoice',
        amountMsat: settled.receivedMsat,
        paymentHash: row.paymentHash,
        bolt11: row.bolt11,
        preimage: settled.preimage ?? null,
        description: row.description,
        assetId: row.assetId,
        assetAmount: row.assetAmount,
      });
    });
    if (credited) {
      this.log.warn(
        { paymentHash: row.paymentHash, walletId: row.walletId, msat: settled.receivedMsat.toString() },
        'an internally paid invoice was also paid on the node before its cancel; credited to the payee as a second payment',
      );
    }
  }
}
