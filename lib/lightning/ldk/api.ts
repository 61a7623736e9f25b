// reglab-ldk's HTTP JSON API (nodes/ldk/README.md): the calls the lab and the wallet server make.
// Amounts go out as exact JSON integers (bigint or number) and come back as numbers: the daemon's
// amounts are u64 msat, exact in a JS number up to 2^53 msat (90,000 BTC), far above a lab's.

/** The daemon answered with its error body `{"error":{"code","message"}}`. */
export class LdkError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(`reglab-ldk ${path} answered ${status} ${code}: ${reason}`);
    this.name = 'LdkError';
  }
}

export interface LdkInfo {
  node_id: string;
  alias: string | null;
  network: string;
  synced: boolean;
  block: { height: number; hash: string };
  num_channels: number;
  num_usable_channels: number;
  num_peers: number;
}

export interface LdkChannel {
  channel_id: string;
  user_channel_id: string;
  counterparty_node_id: string;
  funding_txo: { txid: string; vout: number } | null;
  short_channel_id: string | null;
  capacity_sat: number;
  /** What the node would get if the channel closed now (LDK's claimable balance). */
  balance_sat: number | null;
  outbound_capacity_msat: number;
  inbound_capacity_msat: number;
  is_outbound: boolean;
  is_channel_ready: boolean;
  is_usable: boolean;
  is_announced: boolean;
  confirmations: number | null;
  force_close_spend_delay: number | null;
  feerate_sat_per_1000_weight: number;
}

/** BOLT 3: the weight of a commitment transaction without HTLC outputs (static_remotekey). */
const COMMITMENT_WEIGHT = 724;

/**
 * A channel's balances as lnd counts them, pending HTLCs aside: each side of the commitment, the
 * funder's less the commitment fee. (LDK's outbound and inbound capacities leave out the channel
 * reserves, so a side holding less than its reserve would show nothing.)
 */
export function channelBalancesSat(channel: LdkChannel): { local: number; remote: number } {
  const local = channel.balance_sat ?? 0;
  const commitmentFee = Math.floor((channel.feerate_sat_per_1000_weight * COMMITMENT_WEIGHT) / 1000);
  return { local, remote: Math.max(0, channel.capacity_sat - local - commitmentFee) };
}

export interface LdkPeer {
  node_id: string;
  address: string;
  is_connected: boolean;
  is_persisted: boolean;
}

export interface LdkGraphPolicy {
  enabled: boolean;
  cltv_expiry_delta: number;
}

export interface LdkGraphChannel {
  /** block x transaction x output */
  short_channel_id: string;
  node_one: string;
  node_two: string;
  one_to_two: LdkGraphPolicy | null;
  two_to_one: LdkGraphPolicy | null;
}

export interface LdkLightningBalance {
  type: string;
  channel_id: string;
  amount_sat: number;
  confirmation_height?: number;
  timeout_height?: number;
  claimable_height?: number;
}

export interface LdkPendingSweep {
  status: 'pending_broadcast' | 'broadcast_awaiting_confirmation' | 'awaiting_threshold_confirmations';
  channel_id: string | null;
  amount_sat: number;
  txid?: string;
}

export interface LdkBalances {
  onchain: { total_sat: number; spendable_sat: number; anchor_reserve_sat: number };
  lightning: { total_sat: number; outbound_msat: number; inbound_msat: number };
  lightning_balances: LdkLightningBalance[];
  pending_sweeps: LdkPendingSweep[];
}

export interface LdkInvoice {
  invoice: string;
  payment_hash: string;
  payment_secret: string;
  amount_msat: number | null;
  /** Unix seconds. */
  expires_at: number | null;
  hold: boolean;
}

export interface LdkPayment {
  id: string;
  kind: 'bolt11' | 'bolt11_jit' | 'bolt12_offer' | 'bolt12_refund' | 'keysend' | 'onchain';
  direction: 'inbound' | 'outbound';
  status: 'pending' | 'succeeded' | 'failed';
  amount_msat: number | null;
  fee_paid_msat: number | null;
  payment_hash: string | null;
  preimage: string | null;
  /** Unix seconds. */
  updated_at: number;
  failure_reason?: string | null;
}

export interface LdkEvent {
  id: number;
  type: string;
  payment_hash?: string;
  [field: string]: unknown;
}

export interface LdkInvoiceRequest {
  amount_msat?: bigint | number;
  description?: string;
  /** hex SHA-256 committed instead of a description (LNURL-pay). */
  description_hash?: string;
  expiry_secs?: number;
  /** A hold invoice: settled only with the preimage of this hash. */
  payment_hash?: string;
}

const BIGINT_MARK = '\u0000bigint:';

/** JSON with bigints as exact integers. */
function toJson(body: unknown): string {
  return JSON.stringify(body, (_key, value: unknown) =>
    typeof value === 'bigint' ? `${BIGINT_MARK}${value}` : value,
  ).replace(/"\\u0000bigint:(-?\d+)"/g, '$1');
}

export class LdkClient {
  constructor(
    /** http://host:port of the daemon's API. */
    readonly url: string,
    private readonly options: { timeoutMs?: number } = {},
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(new URL(path, this.url), {
      method,
      headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : toJson(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let code = 'HTTP_ERROR';
      let reason = text;
      try {
        const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
        code = error?.code ?? code;
        reason = error?.message ?? text;
      } catch {
        // not the daemon's error body (a proxy in between): the text says what happened
      }
      throw new LdkError(path, response.status, code, reason);
    }
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  private async get<T>(path: string): Promise<T> {
    return (await this.call<T>('GET', path)).body;
  }

  private async post<T>(path: string, body: unknown = {}): Promise<T> {
    return (await this.call<T>('POST', path, body)).body;
  }

  info() {
    return this.get<LdkInfo>('/v1/info');
  }
  /** Syncs the on-chain and Lightning wallets with the chain source now. */
  sync() {
    return this.post<LdkInfo>('/v1/sync');
  }
  async newAddress(): Promise<string> {
    return (await this.post<{ address: string }>('/v1/address')).address;
  }
  balances() {
    return this.get<LdkBalances>('/v1/balances');
  }
  async connectPeer(pubkey: string, address: string): Promise<void> {
    await this.post('/v1/peers/connect', { pubkey, address });
  }
  async disconnectPeer(pubkey: string): Promise<void> {
    await this.post('/v1/peers/disconnect', { pubkey });
  }
  async peers(): Promise<LdkPeer[]> {
    return (await this.get<{ peers: LdkPeer[] }>('/v1/peers')).peers;
  }
  async channels(): Promise<LdkChannel[]> {
    return (await this.get<{ channels: LdkChannel[] }>('/v1/channels')).channels;
  }
  /** Answers once the funding transaction is signed (202 with nulls when the peer is slower). */
  openChannel(request: {
    pubkey: string;
    address: string;
    capacity_sat: number;
    push_msat?: number;
    public?: boolean;
  }) {
    return this.post<{
      user_channel_id: string;
      channel_id: string | null;
      funding_txid: string | null;
      funding_vout: number | null;
    }>('/v1/channels/open', request);
  }
  async closeChannel(request: {
    user_channel_id: string;
    counterparty_node_id: string;
    force: boolean;
  }): Promise<void> {
    await this.post('/v1/channels/close', request);
  }
  async graphChannels(): Promise<LdkGraphChannel[]> {
    return (await this.get<{ channels: LdkGraphChannel[] }>('/v1/graph/channels')).channels;
  }
  createInvoice(request: LdkInvoiceRequest) {
    return this.post<LdkInvoice>('/v1/invoices', request);
  }
  settleInvoice(paymentHash: string, preimage: string) {
    return this.post<LdkPayment>(`/v1/invoices/${paymentHash}/settle`, { preimage });
  }
  cancelInvoice(paymentHash: string) {
    return this.post<LdkPayment>(`/v1/invoices/${paymentHash}/cancel`);
  }
  /** Pays and waits up to `wait_secs` for the final answer (status pending after that). */
  payInvoice(request: {
    invoice: string;
    amount_msat?: bigint | number;
    max_fee_msat?: bigint | number;
    wait_secs?: number;
  }) {
    return this.post<LdkPayment>('/v1/payments/bolt11', request);
  }
  /** `preimage`: the caller's, so that the payment hash is known before anything is sent. */
  keysend(request: {
    pubkey: string;
    amount_msat: bigint | number;
    preimage?: string;
    max_fee_msat?: bigint | number;
    wait_secs?: number;
  }) {
    return this.post<LdkPayment>('/v1/payments/keysend', request);
  }
  /** A payment by its id or payment hash; undefined when the node has none. */
  async payment(idOrHash: string): Promise<LdkPayment | undefined> {
    try {
      return await this.get<LdkPayment>(`/v1/payments/${idOrHash}`);
    } catch (error) {
      if (error instanceof LdkError && error.status === 404) return undefined;
      throw error;
    }
  }
  async payments(): Promise<LdkPayment[]> {
    return (await this.get<{ payments: LdkPayment[] }>('/v1/payments')).payments;
  }
  /** The event log's entries after `since`, oldest first (the JSON form of the event stream). */
  async events(since = 0): Promise<LdkEvent[]> {
    return (await this.get<{ events: LdkEvent[] }>(`/v1/events?since=${since}`)).events;
  }
}
