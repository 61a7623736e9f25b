// The lab's handle on a node of lab.yaml's nodes[]: every node kind has an on-chain wallet the
// lab funds; Lightning kinds add what funding, channels, payments and inspection go through.
// Amounts in sat are numbers (regtest amounts fit), in msat bigint.
import { conflict, type DomainError } from '../../../lib/errors.js';
import type { ServiceKind } from './kinds.js';

export interface LabNode {
  readonly name: string;
  readonly kind: ServiceKind;
  newAddress(): Promise<string>;
  onchainBalance(): Promise<{ confirmedSat: number; unconfirmedSat: number }>;
  /** Resolves once the node has followed the chain to `height`. */
  waitSynced(height: number, timeoutMs?: number): Promise<void>;
  /** Releases connections (the node keeps running). */
  close(): void;
}

export interface NodeInfo {
  pubkey: string;
  alias?: string;
  synced: boolean;
  height: number;
  peers: number;
}

export interface ChannelView {
  /** The node's own id of the channel (lnd: the funding outpoint "txid:vout"). */
  id: string;
  partnerPubkey: string;
  capacitySat: number;
  localSat: number;
  remoteSat: number;
  active: boolean;
  private: boolean;
  fundingTxid: string;
  fundingVout: number;
}

export interface InvoiceView {
  paymentHash: string;
  state: 'open' | 'accepted' | 'settled' | 'canceled';
  amountMsat: bigint;
  receivedMsat: bigint;
}

export interface PaymentView {
  paymentHash: string;
  preimage?: string;
  amountMsat: bigint;
  feeMsat: bigint;
  /** Channels the payment went over, when the node tells (LDK does not). */
  hops?: number;
}

export interface OpenChannelRequest {
  partnerPubkey: string;
  /** host:port at which this node dials the partner. */
  partnerAddress: string;
  capacitySat: number;
  pushSat: number;
  private?: boolean;
}

/** A channel being closed: for a force close, its funds wait for a timelock before they are swept. */
export interface PendingClose {
  fundingTxid: string;
  closingTxid?: string;
  /** Blocks until the node's own funds of a force close mature; 0 once they have: the node is sweeping them. */
  blocksUntilSweep?: number;
  pendingSat: number;
}

export interface LabLightningNode extends LabNode {
  readonly lightning: true;
  info(): Promise<NodeInfo>;
  /** Resolves when the node's process answers, without asking its chain backend (which may be down). */
  ping(): Promise<void>;
  channelBalanceSat(): Promise<number>;
  channels(): Promise<ChannelView[]>;
  connect(pubkey: string, address: string): Promise<void>;
  disconnect(pubkey: string): Promise<void>;
  /** The pubkeys of the peers connected now. */
  connectedPeers(): Promise<string[]>;
  /** Forgets what failed payments taught its router about its peers' channels (a fault that is over). */
  forgetPaymentFailures(): Promise<void>;
  openChannel(request: OpenChannelRequest): Promise<{ fundingTxid: string; fundingVout: number }>;
  /** Cooperative, or force; returns the closing transaction when the node tells it. */
  closeChannel(channel: ChannelView, force: boolean): Promise<{ closingTxid?: string }>;
  pendingCloses(): Promise<PendingClose[]>;
  /** Whether this node can route over the channel funded by `fundingTxid` (both policies known). */
  canRouteOver(fundingTxid: string): Promise<boolean>;
  /** How many channels of its graph it can route over. */
  routableChannels(): Promise<number>;
  /** A BOLT11 invoice; `hold` gives the payment hash whose preimage only the caller knows. */
  createInvoice(request: {
    amountMsat: bigint;
    memo?: string;
    expirySec?: number;
    holdPaymentHash?: string;
  }): Promise<{ paymentRequest: string; paymentHash: string }>;
  invoice(paymentHash: string): Promise<InvoiceView>;
  settleInvoice(preimage: string): Promise<void>;
  cancelInvoice(paymentHash: string): Promise<void>;
  paymentHashOf(paymentRequest: string): Promise<string>;
  /**
   * Pays and waits for the final answer, for PAYMENT_TIMEOUT_SECONDS and a little more: throws
   * paymentFailed with the node's reason when it fails, paymentInFlight when it has not ended by then.
   */
  pay(paymentRequest: string): Promise<PaymentView>;
  /**
   * A payment this node made earlier, followed to its end: the payment once it succeeded (waited
   * for while it is in flight), undefined when the node made none or it failed.
   */
  paymentOutcome(paymentHash: string): Promise<PaymentView | undefined>;
  /** Pays by keysend, as `pay` does. */
  keysend(pubkey: string, amountMsat: bigint): Promise<PaymentView>;
}

/** How long an earlier payment still in flight (a job taken back after a restart) is followed to its end. */
export const PAYMENT_END_WAIT_MS = 10 * 60_000;

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
export const paymentInFlight = (node: string, paymentHash: string): DomainError =>
  conflict(
    'PAYMENT_IN_FLIGHT',
    `${node}'s payment ${paymentHash} is still in flight after ${PAYMENT_TIMEOUT_SECONDS + PAYMENT_ANSWER_GRACE_SECONDS} s: a node on its way holds it; it succeeds or fails once that node answers again`,
  );

/** Refusals of a payment that a retry cannot change: a job does not send it again. */
export const FINAL_PAYMENT_REFUSALS: ReadonlySet<string> = new Set([
  'CHANNEL_INACTIVE',
  'PEER_NOT_ANSWERING',
  'PAYMENT_FAILED',
  'PAYMENT_IN_FLIGHT',
]);

export const isLightning = (node: LabNode): node is LabLightningNode =>
  (node as Partial<LabLightningNode>).lightning === true;

/** RGB asset schemas: NIA (fungible, with a ticker), CFA (fungible, no ticker), UDA (one unique token). */
export type AssetSchema = 'nia' | 'cfa' | 'uda';

export interface AssetBalance {
  settled: number;
  /** What the balance will be once pending transfers settle. */
  future: number;
  spendable: number;
}

/** An asset as its holder knows it; amounts in the asset's smallest unit. */
export interface HeldAsset {
  assetId: string;
  schema: AssetSchema;
  /** NIA and UDA carry a ticker; CFA has none. */
  ticker?: string;
  name: string;
  precision: number;
  issuedSupply: number;
  balance: AssetBalance;
}

export interface AssetIssue {
  schema: AssetSchema;
  ticker: string;
  name: string;
  precision: number;
  /** The whole supply, issued to the holder (a UDA is one token: 1). */
  amount: number;
}

export interface AssetTransferView {
  kind: 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';
  status: 'WaitingCounterparty' | 'WaitingBroadcast' | 'WaitingConfirmations' | 'Settled' | 'Failed';
  txid?: string;
  recipientId?: string;
}

/** An amount of an asset for the holder of `invoice`; for a UDA the amount is 1 (the token). */
export interface AssetPayment {
  invoice: string;
  amount: number;
}

/** A node that holds RGB assets on-chain (rgb, rln): the lab issues, invoices, sends and refreshes through it. */
export interface AssetHolder extends LabNode {
  readonly holdsAssets: true;
  issueAsset(request: AssetIssue): Promise<HeldAsset>;
  /** Every asset the node knows, with its balance. */
  heldAssets(): Promise<HeldAsset[]>;
  /** An invoice for any asset: to a blinded UTXO of the node, or (`witness`) to a new output the payer makes. */
  assetInvoice(witness: boolean): Promise<{ invoice: string; recipientId: string }>;
  /** Pays the invoices in one transaction; the consignments go to each invoice's proxy. Returns the txid. */
  sendAsset(asset: { assetId: string; schema: AssetSchema }, payments: AssetPayment[]): Promise<string>;
  /** Moves the node's transfers on: fetch and ACK consignments, broadcast, follow confirmations. */
  refreshTransfers(): Promise<void>;
  /** The node's transfers of an asset (none when it does not know the asset yet). */
  assetTransfers(assetId: string): Promise<AssetTransferView[]>;
  /** New colored UTXOs from the node's bitcoin, for receiving and issuing (confirmed by the next block). */
  createColoredUtxos(): Promise<void>;
}

export const holdsAssets = (node: LabNode): node is AssetHolder => (node as Partial<AssetHolder>).holdsAssets === true;
