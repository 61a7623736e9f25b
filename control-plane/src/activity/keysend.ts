// One payment of an activity: a keysend from one lab node to another through lib/lightning (no
// cooperation asked of the destination), followed to its end and described as a record, whatever
// happened: the node's reason when it failed, why it could not be asked when it was down.
import { setTimeout as pause } from 'node:timers/promises';
import { DomainError, describeError } from '../../../lib/errors.js';
import type { PaymentLookup } from '../../../lib/lightning/client.js';
import type { LabSession } from '../lab/session.js';
import { requireReady } from '../lab/operations.js';
import type { PaymentRecord } from './records.js';

export interface KeysendOrder {
  source: string;
  seq: number;
  from: string;
  to: string;
  /** The destination's pubkey (a restart keeps it). */
  toPubkey: string;
  amountSat: number;
}

/** How long a payment still in flight is followed before it is recorded as pending. */
const FOLLOW_MS = 120_000;

/** Sends the keysend and answers its record; never throws. */
export async function keysendRecord(session: LabSession, order: KeysendOrder): Promise<PaymentRecord> {
  const started = Date.now();
  const base = {
    time: new Date(started).toISOString(),
    source: order.source,
    seq: order.seq,
    from: order.from,
    to: order.to,
    amountSat: order.amountSat,
  };
  const ended = (rest: Omit<PaymentRecord, keyof typeof base | 'latencyMs'>): PaymentRecord => ({
    ...base,
    latencyMs: Date.now() - started,
    ...rest,
  });
  try {
    requireReady(session, order.from);
    const payer = session.lightning(order.from);
    const sent = await payer.keysend({ pubkey: order.toPubkey, amountMsat: BigInt(order.amountSat) * 1000n });
    const final = sent.status === 'pending' ? await followed(() => payer.awaitPayment(sent.paymentHash), sent) : sent;
    switch (final.status) {
      case 'succeeded':
        return ended({
          outcome: 'succeeded',
          feeMsat: final.feeMsat.toString(),
          hops: final.hops,
          paymentHash: final.paymentHash,
        });
      case 'failed':
        return ended({
          outcome: 'failed',
          feeMsat: '0',
          code: 'PAYMENT_FAILED',
          reason: final.reason,
          paymentHash: final.paymentHash,
        });
      default:
        return ended({
          outcome: 'pending',
          feeMsat: '0',
          code: 'PAYMENT_PENDING',
          reason: `${order.from} had not ended the payment after ${FOLLOW_MS / 1000} s`,
          paymentHash: final.paymentHash,
        });
    }
  } catch (error) {
    return ended({
      outcome: 'failed',
      feeMsat: '0',
      code: error instanceof DomainError ? error.code : 'NODE_ERROR',
      reason: describeError(error),
    });
  }
}

/** The payment's end, or the pending lookup when it has not ended within FOLLOW_MS. */
async function followed(end: () => Promise<PaymentLookup>, pending: PaymentLookup): Promise<PaymentLookup> {
  const deadline = new AbortController();
  const gaveUp = pause(FOLLOW_MS, pending, { signal: deadline.signal }).catch(() => pending);
  try {
    return await Promise.race([end(), gaveUp]);
  } finally {
    deadline.abort();
  }
}
