// What the wallet server needs from its Lightning node, whatever the node is (lnd, LDK or RLN).
// Amounts are bigint msat (or asset units); hashes and preimages are lowercase hex.

export type NodeKind = 'lnd' | 'ldk' | 'rln';

export interface NodeInfo {
  kind: NodeKind;
  alias: string | null;
  pubkey: string;
  /** Chain sync as the node reports it (RLN has no such flag: true whenever it answers). */
  synced: boolean;
  height: number;
  peers: number;
  channels: { active: number; pending: number; inactive: number };
}

export interface NodeBalances {
  onchainSat: bigint;
  /** Sum of the local side of open channels. */
  lightningLocalMsat: bigint;
}

export interface AssetBalance {
  assetId: string;
  settled: bigint;
  future: bigint;
  spendable: bigint;
  offchainOutbound: bigint;
  offchainInbound: bigint;
}

export interface RgbAmount {
  assetId: string;
  amount: bigint;
}

export interface CreateInvoiceInput {
  amountMsat: bigint;
  expirySec: number;
  description?: string;
  /** hex sha256 committed in the invoice instead of a description (LNURL-pay). */
  descriptionHash?: string;
  asset?: RgbAmount;
}

export interface CreatedInvoice {
  bolt11: string;
  paymentHash: string;
  expiresAt: Date;
}

export type InvoiceState =
  | { state: 'open' }
  | { state: 'settled'; receivedMsat: bigint; preimage: string | null }
  /** Expired or cancelled: can no longer be paid. */
  | { state: 'closed' };

export interface DecodedInvoice {
  paymentHash: string;
  amountMsat: bigint | null;
  asset: RgbAmount | null;
}

/** Why a node's invoice stream was opened again: it ended or failed, or it stopped announcing invoices. */
export type StreamReopenReason = 'broken' | 'silent';

/** The node's final answer for an outgoing payment, or that it has none yet. */
export type PaymentOutcome =
  | { status: 'succeeded'; feeMsat: bigint; preimage: string | null }
  | { status: 'failed'; error: string }
  | { status: 'pending' };

/** lookupPayment also knows 'unknown': the node never started a payment with that hash. */
export type PaymentLookup = PaymentOutcome | { status: 'unknown' };

export interface PayInvoiceInput {
  bolt11: string;
  paymentHash: string;
  maxFeeMsat: bigint;
}

export interface KeysendInput {
  destPubkey: string;
  amountMsat: bigint;
  maxFeeMsat: bigint;
  /** Chosen by the caller so the payment hash is known (and recorded) before anything is sent. */
  preimage: string;
}

export interface NodeGateway {
  readonly kind: NodeKind;
  /** Whether invoices can carry RGB assets (RLN only). */
  readonly supportsAssets: boolean;
  /** lnd and LDK send the keysend preimage they are given, so the hash is recorded before sending;
   * RLN makes its own, known only from its answer. */
  readonly keysendPreimageFromCaller: boolean;
  info(): Promise<NodeInfo>;
  balances(): Promise<NodeBalances>;
  assetBalances(assetIds: string[]): Promise<AssetBalance[]>;
  createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice>;
  decodeInvoice(bolt11: string): Promise<DecodedInvoice>;
  /** bolt11 is passed too because some nodes (RLN) look invoices up by invoice, not hash. */
  lookupInvoice(paymentHash: string, bolt11: string | null): Promise<InvoiceState | null>;
  /** Makes an open invoice unpayable; absent where the node cannot cancel invoices (RLN). */
  cancelInvoice?(paymentHash: string): Promise<void>;
  /** Pushes the hash of every invoice the node settles from now on; returns an unsubscribe.
   * Nodes without a push stream return null (the server then polls lookupInvoice). A stream that
   * broke or fell silent and was opened again is told to onStreamReopened. */
  watchSettledInvoices(
    onSettled: (paymentHash: string) => void,
    onStreamReopened?: (reason: StreamReopenReason) => void,
  ): (() => void) | null;
  /** Sends and resolves with the node's final answer ('pending' only when the node could not be
   * asked to the end, e.g. the connection dropped). */
  payInvoice(input: PayInvoiceInput): Promise<PaymentOutcome>;
  keysend(input: KeysendInput): Promise<PaymentOutcome & { paymentHash: string | null }>;
  lookupPayment(paymentHash: string): Promise<PaymentLookup>;
  /** Waits until the node has a final answer for a payment it knows of. */
  awaitPayment(paymentHash: string): Promise<PaymentLookup>;
  close(): Promise<void>;
}

/** The node failed or could not be reached: the routes answer 502. */
export class NodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NodeError';
  }
}

/** The request certainly never reached the node (no connection could be made, or the node turned it
 * away unread because it is not ready): a payment handed over this way was not taken, and its
 * reservation can be released at once. Other NodeErrors leave that unknown. */
export class NodeUnreachable extends NodeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NodeUnreachable';
  }
}

// Errors of a connection that was never made (refused, no such host, no route, connect time-out):
// nothing of the request was sent.
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Whether an HTTP call (fetch) failed before its connection was made, so the server got nothing. */
export function connectionNeverMade(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECT_FAILURES.has(code)) return true;
  }
  return false;
}

/** The node refused a request because of its input (bad pubkey, unsupported feature): 400. */
export class NodeRejected extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'NodeRejected';
  }
}
