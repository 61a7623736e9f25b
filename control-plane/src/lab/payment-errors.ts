// How long the lab gives a payment, and how it says one did not go: given up by the node, still in
// flight when the lab stopped waiting, or refused by the lab before anything was sent.
import { conflict, type DomainError } from '../../../lib/errors.js';

/**
 * How long a lab payment is given: lnd stops trying routes after it (its payment timeout), LDK's API
 * waits that long. A payment whose HTLC is held by a node that does not answer (frozen) stays in
 * flight until that node answers again: the lab reports it then, rather than wait.
 */
export const PAYMENT_TIMEOUT_SECONDS = 15;
/** What the lab waits beyond the payment timeout for the node's final answer. */
export const PAYMENT_ANSWER_GRACE_SECONDS = 5;

/** The node gave up the payment: its reason in words (no route, no balance, refused by the payee...). */
export const paymentFailed = (node: string, reason: string): DomainError =>
  conflict('PAYMENT_FAILED', `${node} could not pay: ${reason}`);

/** The payment neither succeeded nor failed in time: an HTLC of it is held somewhere on its way. */
export const paymentInFlight = (node: string, paymentHash: string | undefined): DomainError =>
  conflict(
    'PAYMENT_IN_FLIGHT',
    `${node}'s payment ${paymentHash ?? ''}${paymentHash ? ' ' : ''}is still in flight after ${PAYMENT_TIMEOUT_SECONDS + PAYMENT_ANSWER_GRACE_SECONDS} s: a node on its way holds it; it succeeds or fails once that node answers again`,
  );

/** Refusals of a payment that a retry cannot change: a job does not send it again. */
export const FINAL_PAYMENT_REFUSALS: ReadonlySet<string> = new Set([
  'CHANNEL_INACTIVE',
  'PEER_NOT_ANSWERING',
  'PAYMENT_FAILED',
  'PAYMENT_IN_FLIGHT',
]);
