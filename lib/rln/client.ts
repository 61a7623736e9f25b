// RGB Lightning Node's HTTP JSON API, the calls the control plane makes to bring a node up
// (shapes from ../shared/reference/rgb-lightning-node.md: RLN HEAD, with the OLD /unlock noted).

/** RLN answered with an error body `{error, code, name?}`. */
export class RlnError extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(`RLN ${path} answered ${status}: ${reason}`);
    this.name = 'RlnError';
  }

  /** 403: locked, not initialised, changing state, no UTXOs, not enough funds... (retryable states). */
  get forbidden(): boolean {
    return this.status === 403;
  }
}

export interface RlnAsset {
  asset_id: string;
  ticker: string;
  name: string;
  precision: number;
  issued_supply: number;
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
  | { mode: 'BlockSync'; config: { bitcoind_rpc_username: string; bitcoind_rpc_password: string; bitcoind_rpc_host: string; bitcoind_rpc_port: number } }
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
      try {
        reason = String((JSON.parse(text) as { error?: unknown }).error ?? text);
      } catch {
        // not JSON (an axum rejection can be plain text)
      }
      throw new RlnError(path, response.status, reason);
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
    return this.call<{ pubkey: string; num_channels: number; num_usable_channels: number; num_peers: number }>('GET', '/nodeinfo');
  }
  networkInfo() {
    return this.call<{ network: string; height: number }>('GET', '/networkinfo');
  }
  async address(): Promise<string> {
    return (await this.call<{ address: string }>('POST', '/address', {})).address;
  }
  btcBalance() {
    type Balance = { settled: number; future: number; spendable: number };
    return this.call<{ vanilla: Balance; colored: Balance }>('POST', '/btcbalance', { skip_sync: false });
  }
  createUtxos(request: { up_to: boolean; num?: number; size?: number; fee_rate: number; skip_sync: boolean }) {
    return this.call<object>('POST', '/createutxos', request);
  }
  async issueAssetNia(request: { amounts: number[]; ticker: string; name: string; precision: number }): Promise<RlnAsset> {
    return (await this.call<{ asset: RlnAsset }>('POST', '/issueassetnia', request)).asset;
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
}
