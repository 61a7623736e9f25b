// One Lightning client for every node implementation reglab speaks to (lib/lightning/implementations.ts
// lists them: lnd, LDK, RLN), one folder each. The control plane's node kinds, the wallet server and
// the faucet all reach their nodes through it.
//
// Vocabulary, the same for every implementation and caller:
// - `bolt11`: a BOLT11 invoice as text; `paymentHash`, `preimage`, `pubkey`: lowercase hex;
// - `description`: the text an invoice commits to, or `descriptionHash`: its sha256 (LNURL-pay);
// - off-chain amounts in msat, as bigint; what is an output on-chain (wallet balances, a channel's
//   capacity and its sides, the funds of a close) in sat, as a number (regtest amounts fit);
// - a payment's outcome: `succeeded`, `failed` (the node gave it up, with its reason), `pending`
//   (still in flight, or the node could not be asked to the end), and for lookups `unknown` (the
//   node never started a payment of that hash).
// Failures are LightningErrors (errors.ts): the node refused the request for what it asked (kind
// `invalid`, or `not_found` / `conflict` for the state it names), failed, or was never reached
// (LightningUnreachable).
//
// Capabilities. Every implementation serves the core members. What only some serve is an optional
// member, there exactly when the implementation serves it; callers check it before use:
// - `channels`: peers, channels, closes and the gossip graph (lnd, LDK): what a lab drives;
// - `holdInvoices`: invoices whose preimage only the caller knows (lnd, LDK);
// - `cancelInvoice`: makes an open invoice unpayable (lnd, LDK);
// - `watchSettledInvoices`: a push stream of settled invoices (lnd, LDK); without it, poll `invoice`;
// - `assets`: RGB asset balances, and invoices carrying an asset amount (RLN);
// - `sendOnchain`: pays an address from the node's on-chain wallet (lnd: the faucet's).
// Options of core calls that only some implementations take are flags of `capabilities`.

export interface LightningClient {
  /** Which implementation this is (one of LIGHTNING_IMPLEMENTATIONS), as messages and logs name it. */
  readonly implementation: string;
  readonly capabilities: LightningCapabilities;

  info(): Promise<NodeInfo>;
  /** Resolves once the node has followed the chain to `height`. */
  waitSynced(height: number, timeoutMs?: number): Promise<void>;
  /** A new address of the node's on-chain wallet. */
  newAddress(): Promise<string>;
  onchainBalance(): Promise<OnchainBalance>;
  /** The sum of the node's sides of its open channels. */
  channelBalanceMsat(): Promise<bigint>;

  createInvoice(request: InvoiceRequest): Promise<CreatedInvoice>;
  /** Reads an invoice (for any node); an unreadable one is refused (INVALID_INVOICE). */
  decodeInvoice(bolt11: string): Promise<DecodedInvoice>;
  /**
   * An invoice of this node, undefined when it has none of that hash. `bolt11` too, where known: some
   * nodes look invoices up by invoice (RLN), some cancel one past its expiry only when asked (LDK).
   */
  invoice(paymentHash: string, bolt11?: string): Promise<Invoice | undefined>;

  /**
   * Pays and resolves with the node's final answer; `pending` only when the node could not be asked
   * to the end (the connection dropped). A request the node never got throws LightningUnreachable;
   * one it refused for what it asked is `failed`, or throws a LightningError of kind `invalid`.
   */
  pay(request: PayRequest): Promise<PaymentOutcome>;
  /** Pays `amountMsat` to `pubkey` without an invoice, answered as `pay` is. */
  keysend(request: KeysendRequest): Promise<PaymentOutcome>;
  /** Where a payment this node made stands now. */
  payment(paymentHash: string): Promise<PaymentLookup>;
  /** Waits until a payment this node knows of has ended; `pending` only when the client closed meanwhile. */
  awaitPayment(paymentHash: string): Promise<PaymentLookup>;

  /** Ends the client's streams and waits (the node keeps running). */
  close(): void;

  readonly channels?: ChannelControl;
  readonly holdInvoices?: HoldInvoices;
  cancelInvoice?(paymentHash: string): Promise<void>;
  /**
   * Calls `onSettled` with the hash of every invoice the node settles from now on, until the returned
   * function is called. A stream that broke or fell silent and was opened again is told to `onReopened`.
   */
  watchSettledInvoices?(
    onSettled: (paymentHash: string) => void,
    onReopened?: (reason: StreamReopenReason) => void,
  ): () => void;
  readonly assets?: RgbAssets;
  /** Pays `amountSat` to `address` from the node's on-chain wallet; returns the txid. Not enough funds: INSUFFICIENT_FUNDS. */
  sendOnchain?(request: OnchainSend): Promise<string>;
}

/** Options of core calls that not every implementation takes. */
export interface LightningCapabilities {
  /** createInvoice commits a `descriptionHash` instead of a description (LNURL-pay). */
  descriptionHash: boolean;
  /** keysend sends the caller's `preimage`, so the payment hash is known before anything is sent. */
  keysendPreimage: boolean;
}

export interface NodeInfo {
  pubkey: string;
  alias?: string;
  /** Chain sync as the node reports it (RLN has no such flag: true whenever it answers). */
  synced: boolean;
  height: number;
  peers: number;
  channels: { active: number; pending: number; inactive: number };
}

export interface OnchainBalance {
  confirmedSat: number;
  unconfirmedSat: number;
}

export interface InvoiceRequest {
  amountMsat: bigint;
  description?: string;
  /** hex sha256 committed instead of a description; only where `capabilities.descriptionHash`. */
  descriptionHash?: string;
  /** The node's default when absent. */
  expirySec?: number;
  /** An RGB asset amount the invoice asks for besides the bitcoin; only where `assets` is. */
  asset?: AssetAmount;
}

export interface CreatedInvoice {
  bolt11: string;
  paymentHash: string;
  expiresAt: Date;
}

export interface DecodedInvoice {
  paymentHash: string;
  /** null for an invoice without an amount. */
  amountMsat: bigint | null;
  expiresAt: Date;
  /** The RGB asset amount it asks for, read by nodes that hold assets; null otherwise. */
  asset: AssetAmount | null;
}

export interface Invoice {
  paymentHash: string;
  /** accepted: a hold invoice whose payment has arrived and waits for its preimage. canceled: also expired. */
  state: 'open' | 'accepted' | 'settled' | 'canceled';
  amountMsat: bigint;
  /** What the node was paid: 0 until settled. */
  receivedMsat: bigint;
  /** Once settled, when the node tells it (RLN does not). */
  preimage?: string;
}

export interface PayRequest {
  bolt11: string;
  /** Most routing fee the payment may cost; the node's own limit when absent (RLN takes none). */
  maxFeeMsat?: bigint;
  /**
   * How long the node tries routes before it gives the payment up (lnd's payment timeout), or waits
   * for its answer in one request (LDK); the node's own when absent (RLN takes none).
   */
  timeoutSec?: number;
}

export interface KeysendRequest {
  pubkey: string;
  amountMsat: bigint;
  maxFeeMsat?: bigint;
  /** As PayRequest's. */
  timeoutSec?: number;
  /** Where `capabilities.keysendPreimage`: the preimage to send (made by the client when absent). */
  preimage?: string;
}

/** A payment that succeeded. */
export interface Payment {
  paymentHash: string;
  preimage?: string;
  /** What the payee got, routing fee apart. */
  amountMsat: bigint;
  feeMsat: bigint;
  /** Channels the payment went over, when the node tells (LDK and RLN do not). */
  hops?: number;
}

export type PaymentOutcome =
  | ({ status: 'succeeded' } & Payment)
  | { status: 'failed'; paymentHash: string; reason: string }
  | { status: 'pending'; paymentHash: string };

/** A lookup also knows `unknown`: the node never started a payment with that hash. */
export type PaymentLookup = PaymentOutcome | { status: 'unknown'; paymentHash: string };

/** Why an invoice stream was opened again: it ended or failed, or it stopped announcing invoices. */
export type StreamReopenReason = 'broken' | 'silent';

export interface Channel {
  /** The node's own id of the channel: its funding outpoint "txid:vout". */
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
  /**
   * Those funds matured blocks ago and are still not swept (lnd): a lab's next block confirms a
   * sweep, and lnd can leave one pending until it restarts (lnd issue #10938, docs/lab-yaml.md).
   */
  sweepOverdue?: true;
  pendingSat: number;
}

/** Peers, channels, closes and the gossip graph. */
export interface ChannelControl {
  /** The open channels (their funding confirmed), active or not. */
  list(): Promise<Channel[]>;
  connectPeer(pubkey: string, address: string): Promise<void>;
  disconnectPeer(pubkey: string): Promise<void>;
  /** The pubkeys of the peers connected now. */
  connectedPeers(): Promise<string[]>;
  /** Resolves when the node's process answers, without asking its chain backend (which may be down). */
  ping(): Promise<void>;
  /** Forgets what failed payments taught its router about its peers' channels (a fault that is over). */
  forgetPaymentFailures(): Promise<void>;
  /**
   * Opens; resolves once the funding transaction is broadcast. A connection to the partner lost
   * before the open began rejects with PEER_DISCONNECTED (isPeerLost; lnd tells it): nothing was funded.
   */
  open(request: OpenChannelRequest): Promise<{ fundingTxid: string; fundingVout: number }>;
  /** Cooperative, or force; the closing transaction once it is broadcast, when the node tells it. */
  close(channel: Channel, force: boolean): Promise<{ closingTxid?: string }>;
  pendingCloses(): Promise<PendingClose[]>;
  /** Whether the node can route over the channel funded by `fundingTxid` (both its policies known). */
  canRouteOver(fundingTxid: string): Promise<boolean>;
  /** How many channels of its graph it can route over. */
  routableChannels(): Promise<number>;
}

/** Invoices the caller settles with a preimage only it knows, or cancels (cancelInvoice). */
export interface HoldInvoices {
  /** An invoice of `paymentHash`: the payment's HTLCs are held (state accepted) until settled or canceled. */
  create(request: InvoiceRequest & { paymentHash: string }): Promise<CreatedInvoice>;
  settle(preimage: string): Promise<void>;
}

/** An amount of an RGB asset, in its smallest unit. */
export interface AssetAmount {
  assetId: string;
  amount: bigint;
}

export interface AssetBalance {
  assetId: string;
  settled: bigint;
  future: bigint;
  spendable: bigint;
  offchainOutbound: bigint;
  offchainInbound: bigint;
}

export interface RgbAssets {
  /** The balances of `assetIds`; an asset the node does not know is refused (INVALID_ASSET). */
  balances(assetIds: string[]): Promise<AssetBalance[]>;
}

export interface OnchainSend {
  address: string;
  amountSat: number;
  /** Confirmations the coins spent need (0: unconfirmed change too); the node's default when absent. */
  minConfirmations?: number;
  /** A note the node keeps with the transaction. */
  label?: string;
}

/** What every implementation's client takes besides its connection. */
export interface ClientOptions {
  /** The node's name in messages ("alice could not pay: ..."); the implementation's name by default. */
  name?: string;
  /** How often a payment in flight is asked about, where the node has no stream of it. */
  pollMs?: number;
  /** How long one request to the node may take. */
  timeoutMs?: number;
}

/** What each implementation's folder offers (its index.ts), which implementations.ts lists. */
export interface LightningImplementationModule<Connection> {
  connect(connection: Connection, options?: ClientOptions): LightningClient;
  /** The connection a lab service reads from its environment: what connectionToEnv writes. */
  connectionFromEnv(env: NodeJS.ProcessEnv): Promise<Connection>;
  connectionToEnv(connection: Connection): Record<string, string>;
}
