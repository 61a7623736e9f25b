// Following payments to their end by asking, for nodes that have no stream of them (LDK, RLN).
import { sleep } from '../wait.js';
import type { PaymentLookup, PaymentOutcome } from './client.js';

export class PaymentPolls {
  private closed = false;

  constructor(
    /** Where a payment of the node stands now. */
    private readonly lookup: (paymentHash: string) => Promise<PaymentLookup>,
    private readonly pollMs: number,
  ) {}

  /** Asks every pollMs until the payment is no longer pending, or until the client closes. */
  async untilEnded(paymentHash: string): Promise<PaymentLookup> {
    for (;;) {
      const found = await this.lookup(paymentHash);
      if (found.status !== 'pending' || this.closed) return found;
      await sleep(this.pollMs);
    }
  }

  /** The end of a payment the node has taken: one it does not know (yet) is still pending. */
  async endOf(paymentHash: string): Promise<PaymentOutcome> {
    const final = await this.untilEnded(paymentHash);
    return final.status === 'unknown' ? { status: 'pending', paymentHash } : final;
  }

  close(): void {
    this.closed = true;
  }
}
