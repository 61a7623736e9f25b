// RGB Lightning Node's HTTP JSON API: the calls the control plane makes to bring a node up and hold
// RGB assets, and the Lightning calls of lib/lightning/rln (shapes from
// ../shared/reference/rgb-lightning-node.md: RLN HEAD, with the OLD /unlock noted).

/** RLN answered with an error body `{error, code, name?}`. */
export class RlnError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly reason: string,
    /** RLN's name of the error (`InsufficientAssets`, `NoAvailableUtxos`...), when the body has one. */
    readonly rlnName?: string,
  ) {
    super(`RLN ${path} answered ${status}: ${reason}`);
    this.name = 'RlnError';
  }

  /** 403: locked, not initialised, changing state, no UTXOs, not enough funds... (retryable states). */
  get forbidden(): boolean {
    return this.status === 403;
  }
}

/** An NIA asset as /issueassetnia answers it. */
export interface RlnAsset extends RlnHeldAsset {
  ticker: string;
  issued_supply: number;
}

export interface RlnAssetBalance {
  settled: number;
  future: number;
  spendable: number;
  offchain_outbound?: number;
  offchain_inbound?: number;
}

/** An asset of /listassets: NIA and UDA have a ticker, CFA none; UDA no issued supply (it is one token). */
export interface RlnHeldAsset {
  asset_id: string;
  ticker?: string;
  name: string;
  precision: number;
  issued_supply?: number;
  balance: RlnAssetBalance;
}

export interface RlnAssetLists {
  nia?: RlnHeldAsset[] | null;
  cfa?: RlnHeldAsset[] | null;
  uda?: RlnHeldAsset[] | null;
}

/** RLN's assignments: an amount of a fungible asset, a unique token, or (in invoices) anything. */
export type RlnAssignment = { type: 'Fungible'; value: number } | { type: 'NonFungible' } | { type: 'Any' };

export interface RlnRgbInvoiceRequest {
  asset_id?: string;
  assignment?: RlnAssignment;
  min_confirmations: number;
  witness: boolean;
  expiration_timestamp?: number;
  transport_endpoints?: string[];
}

export interface RlnRgbInvoice {
  recipient_id: string;
  invoice: string;
  expiration_timestamp: number | null;
  batch_transfer_idx: number;
}

export interface RlnInvoiceData {
  recipient_id: string;
  recipient_type: 'Blind' | 'Witness';
  asset_schema: 'Nia' | 'Cfa' | 'Uda' | null;
  asset_id: string | null;
  assignment: RlnAssignment;
  /** rgb-lib's name of the network: Regtest, Testnet, Mainnet... */
  network: string;
  /** Unix seconds; null when the invoice does not expire. */
  expiration_timestamp: number | null;
  transport_endpoints: string[];
}

export interface RlnRecipient {
  recipient_id: string;
  witness_data?: { amount_sat: number; blinding?: number | null };
  assignment: RlnAssignment;
  transport_endpoints: string[];
}

export interface RlnSendRgb {
  donation: boolean;
  fee_rate: number;
  min_confirmations: number;
  expiration_timestamp?: number;
  recipient_map: Record<string, RlnRecipient[]>;
}

export interface RlnTransfer {
  idx: number;
  status: 'WaitingCounterparty' | 'WaitingBroadcast' | 'WaitingConfirmations' | 'Settled' | 'Failed';
  kind: 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';
  txid: string | null;
  recipient_id: string | null;
  assignments: RlnAssignment[];
}

export interface RlnChannel {
  channel_id: string;
  peer_pubkey: string;
  status: 'Opening' | 'Opened' | 'Closing';
  ready: boolean;
  is_usable: boolean;
  capacity_sat: number;
  asset_id?: string | null;
  asset_local_amount?: number | null;
}

/** The chain-sync part of HEAD's /unlock. */
export type RlnChainSync =
  | {
      mode: 'BlockSync';
      config: {
        bitcoind_rpc_username: string;
        bitcoind_rpc_password: string;
        bitcoind_rpc_host: string;
        bitcoind_rpc_port: number;
      };
    }
  | { mode: 'TransactionSync'; config: { indexer_url: string } };

export interface RlnUnlockHead {
  password: string;
  ldk_chain_sync: RlnChainSync;
  indexer_url: string;
  announce_addresses: string[];
  announce_alias?: string;
}

export interface RlnUnlockOld {
  password: string;
  bitcoind_rpc_username: string;
  bitcoind_rpc_password: string;
  bitcoind_rpc_host: string;
  bitcoind_rpc_port: number;
  indexer_url?: string;
  proxy_endpoint?: string;
  announce_addresses: string[];
  announce_alias?: string;
}

export interface RlnLnInvoiceRequest {
  amt_msat: number;
  expiry_sec: number;
  description?: string;
  asset_id?: string;
  asset_amount?: number;
}

/** A BOLT11 invoice as /decodelninvoice reads it (RGB tags included). */
export interface RlnDecodedLnInvoice {
  amt_msat?: number | null;
  expiry_sec: number;
  /** Unix seconds. */
  timestamp: number;
  asset_id?: string | null;
  asset_amount?: number | null;
  payment_hash: string;
  network: string;
}

export type RlnPaymentStatus = 'Pending' | 'Succeeded' | 'Failed';

export interface RlnPayment {
  amt_msat?: number | null;
  payment_hash: string;
  inbound: boolean;
  status: RlnPaymentStatus;
  preimage?: string | null;
}

export interface RlnOpenChannel {
  peer_pubkey_and_opt_addr: string;
  capacity_sat: number;
  push_msat: number;
  asset_amount?: number;
  asset_id?: string;
  public: boolean;
  with_anchors: boolean;
}

export class RlnClient {
  constructor(
    /** http://host:port of the node's API (use 127.0.0.1, not localhost: ::1 breaks /unlock). */
    readonly url: string,
    private readonly options: { token?: string; timeoutMs?: number } = {},
  ) {}

  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.url), {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 120_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let reason = text;
      let name: string | undefined;
      try {
        const body = JSON.parse(text) as { error?: unknown; name?: unknown };
        reason = String(body.error ?? text);
        if (typeof body.name === 'string') name = body.name;
      } catch {
        // not JSON (an axum rejection can be plain text)
      }
      throw new RlnError(path, response.status, reason, name);
    }
    return (text ? JSON.parse(text) : {}) as T;
  }

  init(password: string, mnemonic?: string) {
    return this.call<{ mnemonic: string }>('POST', '/init', { password, ...(mnemonic ? { mnemonic } : {}) });
  }
  unlock(request: RlnUnlockHead | RlnUnlockOld) {
    return this.call<object>('POST', '/unlock', request);
  }
  nodeInfo() {
    return this.call<{
      pubkey: string;
      num_channels: number;
      num_usable_channels: number;
      num_peers: number;
      local_balance_sat: number;
    }>('GET', '/nodeinfo');
  }
  networkInfo() {
    return this.call<{ network: string; height: number }>('GET', '/networkinfo');
  }
  async address(): Promise<string> {
    return (await this.call<{ address: string }>('POST', '/address', {})).address;
  }
  /** `skipSync`: the balances as the node last synced them, without syncing its wallet first. */
  btcBalance(skipSync = false) {
    type Balance = { settled: number; future: number; spendable: number };
    return this.call<{ vanilla: Balance; colored: Balance }>('POST', '/btcbalance', { skip_sync: skipSync });
  }
  createUtxos(request: { up_to: boolean; num?: number; size?: number; fee_rate: number; skip_sync: boolean }) {
    return this.call<object>('POST', '/createutxos', request);
  }
  async issueAssetNia(request: {
    amounts: number[];
    ticker: string;
    name: string;
    precision: number;
  }): Promise<RlnAsset> {
    return (await this.call<{ asset: RlnAsset }>('POST', '/issueassetnia', request)).asset;
  }
  async issueAssetCfa(request: { amounts: number[]; name: string; precision: number }): Promise<RlnHeldAsset> {
    return (await this.call<{ asset: RlnHeldAsset }>('POST', '/issueassetcfa', request)).asset;
  }
  async issueAssetUda(request: { ticker: string; name: string; precision: number }): Promise<RlnHeldAsset> {
    return (
      await this.call<{ asset: RlnHeldAsset }>('POST', '/issueassetuda', { ...request, attachments_file_digests: [] })
    ).asset;
  }
  /** Every asset the node knows, by schema. */
  listAssets() {
    return this.call<RlnAssetLists>('POST', '/listassets', { filter_asset_schemas: [] });
  }
  assetBalance(assetId: string) {
    return this.call<RlnAssetBalance>('POST', '/assetbalance', { asset_id: assetId });
  }
  rgbInvoice(request: RlnRgbInvoiceRequest) {
    return this.call<RlnRgbInvoice>('POST', '/rgbinvoice', request);
  }
  decodeRgbInvoice(invoice: string) {
    return this.call<RlnInvoiceData>('POST', '/decodergbinvoice', { invoice });
  }
  async sendRgb(request: RlnSendRgb): Promise<string> {
    return (await this.call<{ txid: string }>('POST', '/sendrgb', request)).txid;
  }
  async refreshTransfers(): Promise<void> {
    await this.call<object>('POST', '/refreshtransfers', { skip_sync: false });
  }
  async listTransfers(assetId: string): Promise<RlnTransfer[]> {
    return (await this.call<{ transfers: RlnTransfer[] }>('POST', '/listtransfers', { asset_id: assetId })).transfers;
  }
  connectPeer(peerPubkeyAndAddr: string) {
    return this.call<object>('POST', '/connectpeer', { peer_pubkey_and_addr: peerPubkeyAndAddr });
  }
  openChannel(request: RlnOpenChannel) {
    return this.call<{ temporary_channel_id: string }>('POST', '/openchannel', request);
  }
  async listChannels(): Promise<RlnChannel[]> {
    return (await this.call<{ channels: RlnChannel[] }>('GET', '/listchannels')).channels;
  }
  async lnInvoice(request: RlnLnInvoiceRequest): Promise<string> {
    return (await this.call<{ invoice: string }>('POST', '/lninvoice', request)).invoice;
  }
  decodeLnInvoice(invoice: string) {
    return this.call<RlnDecodedLnInvoice>('POST', '/decodelninvoice', { invoice });
  }
  /** Pending, Succeeded, Expired or Failed; 403 UnknownLNInvoice for an invoice the node did not make. */
  async invoiceStatus(invoice: string): Promise<string> {
    return (await this.call<{ status: string }>('POST', '/invoicestatus', { invoice })).status;
  }
  sendPayment(invoice: string) {
    return this.call<{ payment_hash?: string; status: RlnPaymentStatus }>('POST', '/sendpayment', { invoice });
  }
  /** RLN makes the preimage: the payment hash is known from the answer only. */
  keysend(request: { dest_pubkey: string; amt_msat: number }) {
    return this.call<{ payment_hash: string; payment_preimage: string; status: RlnPaymentStatus }>(
      'POST',
      '/keysend',
      request,
    );
  }
  /** 403 PaymentNotFound for a hash the node has no payment of. */
  async getPayment(paymentHash: string): Promise<RlnPayment> {
    return (await this.call<{ payment: RlnPayment }>('POST', '/getpayment', { payment_hash: paymentHash })).payment;
  }
}
