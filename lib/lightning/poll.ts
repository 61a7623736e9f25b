// Following a payment to its end by asking, for nodes that have no stream of it.
import { sleep } from '../wait.js';
import type { PaymentLookup } from './client.js';

/** Asks `lookup` every `pollMs` until the payment is no longer pending, or until `closed()`. */
export async function pollUntilEnded(
  lookup: () => Promise<PaymentLookup>,
  pollMs: number,
  closed: () => boolean,
): Promise<PaymentLookup> {
  for (;;) {
    const found = await lookup();
    if (found.status !== 'pending' || closed()) return found;
    await sleep(pollMs);
  }
}
