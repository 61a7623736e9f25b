// One rgb-lib wallet, asynchronous: its calls run on the process's rgb-lib thread
// (rgb-lib-thread.ts), so the caller's event loop keeps serving (an HTTP API, or a proxy rgb-lib is
// talking to in the same process). The binding's quirks are handled here: every integer goes as a
// string, the keys carry `vanillaKeychain: null`, goOnline gets all three of its options.
import type { BindingWalletData } from './binding.js';
import { RgbLibError } from './rgb-lib-error.js';
import { rgbLibRequest } from './rgb-lib-thread.js';
import type {
  AssetCfa,
  AssetLists,
  AssetNia,
  AssetSchema,
  AssetUda,
  Assignment,
  Balance,
  BtcBalance,
  ReceiveData,
  Recipient,
  RefreshResult,
  RgbKeys,
  SendResult,
  Transfer,
  Unspent,
} from './types.js';

/** How many addresses back rgb-lib looks when it syncs the vanilla (BTC-only) keychain: its own default. */
const VANILLA_SYNC_LOOKBACK = 20;
const DAY_SECONDS = 24 * 60 * 60;
/**
 * Regtest mempools are empty and btcd relays from 1 sat/vB. rgb-lib pays a send's fee from its
 * colored UTXOs (1000 sat each by default): at the lab's 20 sat/vB fallback the fee would eat them
 * and the send fail with InsufficientAllocationSlots.
 */
const DEFAULT_FEE_RATE_SAT_PER_VB = 2;
const ALL_SCHEMAS: AssetSchema[] = ['Nia', 'Cfa', 'Uda'];

/** A non-negative integer as the binding wants it: a string. JSON numbers are exact only up to 2^53. */
function integer(value: number, name: string): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${value}`);
  return String(value);
}

/** Checks the amount an assignment carries (it travels as a JSON number). */
function assignmentAmounts(assignment: Assignment): void {
  if (typeof assignment !== 'object') return;
  integer('Fungible' in assignment ? assignment.Fungible : assignment.InflationRight, 'amount');
}

const inADay = () => Math.floor(Date.now() / 1000) + DAY_SECONDS;

export interface OpenWalletOptions {
  dataDir: string;
  keys: RgbKeys;
  /** Allocations one UTXO may hold (default 1). */
  maxAllocationsPerUtxo?: number;
  supportedSchemas?: AssetSchema[];
}

export interface ReceiveRequest {
  /** Bind the invoice to one asset, or leave it open to any. */
  assetId?: string;
  assignment: Assignment;
  /** rgb:// transport endpoints, e.g. proxyEndpoint(host:port). */
  transportEndpoints: string[];
  /** Unix seconds; default a day from now. */
  expirationTimestamp?: number;
  minConfirmations?: number;
}

export interface SendRequest {
  recipientMap: Record<string, Recipient[]>;
  donation?: boolean;
  feeRateSatPerVb?: number;
  minConfirmations?: number;
  /** Unix seconds after which an unanswered transfer fails; default a day from now. */
  expirationTimestamp?: number;
}

let lastWalletNumber = 0;

export class RgbWallet {
  private online?: { id: string };

  private constructor(private readonly number: number) {}

  /** Opens (or creates) the wallet in `dataDir`; it stays offline until goOnline. */
  static async open(options: OpenWalletOptions): Promise<RgbWallet> {
    const walletData: BindingWalletData = {
      dataDir: options.dataDir,
      bitcoinNetwork: 'Regtest',
      databaseType: 'Sqlite',
      maxAllocationsPerUtxo: integer(options.maxAllocationsPerUtxo ?? 1, 'maxAllocationsPerUtxo'),
      supportedSchemas: options.supportedSchemas ?? ALL_SCHEMAS,
    };
    const number = ++lastWalletNumber;
    await rgbLibRequest({ op: 'open', wallet: number, walletData, keys: { ...options.keys, vanillaKeychain: null } });
    return new RgbWallet(number);
  }

  private call<T>(method: string, ...args: unknown[]): Promise<T> {
    return rgbLibRequest({ op: 'call', wallet: this.number, method, args }) as Promise<T>;
  }

  private get onlineHandle(): { id: string } {
    if (!this.online) throw new RgbLibError('the wallet is offline: call goOnline(indexerUrl) first');
    return this.online;
  }

  /** `tcp://host:port` for an Electrum indexer, `http://host:port/api` for an Esplora one. */
  async goOnline(indexerUrl: string, options: { skipConsistencyCheck?: boolean } = {}): Promise<void> {
    this.online = await this.call<{ id: string }>('goOnline', {
      indexerUrl,
      skipConsistencyCheck: options.skipConsistencyCheck ?? false,
      vanillaSyncLookback: VANILLA_SYNC_LOOKBACK,
    });
  }

  /** A new address of the vanilla (BTC-only) keychain, to fund the wallet. */
  async address(): Promise<string> {
    return this.call('getAddress');
  }

  async btcBalance(options: { skipSync?: boolean } = {}): Promise<BtcBalance> {
    return this.call('getBtcBalance', this.online ?? null, options.skipSync ?? this.online === undefined);
  }

  /** Creates colorable UTXOs from the vanilla funds; returns how many. */
  async createUtxos(
    options: { num?: number; sizeSat?: number; upTo?: boolean; feeRateSatPerVb?: number; skipSync?: boolean } = {},
  ): Promise<number> {
    // the binding hands the count back as the C library's text
    const created = await this.call<string>(
      'createUtxos',
      this.onlineHandle,
      options.upTo ?? false,
      options.num === undefined ? null : integer(options.num, 'num'),
      options.sizeSat === undefined ? null : integer(options.sizeSat, 'sizeSat'),
      integer(options.feeRateSatPerVb ?? DEFAULT_FEE_RATE_SAT_PER_VB, 'feeRateSatPerVb'),
      options.skipSync ?? false,
    );
    return Number(created);
  }

  async issueNia(asset: { ticker: string; name: string; precision: number; amounts: number[] }): Promise<AssetNia> {
    return this.call(
      'issueAssetNIA',
      asset.ticker,
      asset.name,
      integer(asset.precision, 'precision'),
      asset.amounts.map((amount) => integer(amount, 'amount')),
    );
  }

  /** A CFA asset (no ticker), without a media file. */
  async issueCfa(asset: { name: string; details?: string; precision: number; amounts: number[] }): Promise<AssetCfa> {
    return this.call(
      'issueAssetCFA',
      asset.name,
      asset.details ?? null,
      integer(asset.precision, 'precision'),
      asset.amounts.map((amount) => integer(amount, 'amount')),
      null,
    );
  }

  /** A UDA asset (one token), without media or attachments. */
  async issueUda(asset: { ticker: string; name: string; details?: string; precision: number }): Promise<AssetUda> {
    return this.call(
      'issueAssetUDA',
      asset.ticker,
      asset.name,
      asset.details ?? null,
      integer(asset.precision, 'precision'),
      null,
      [],
    );
  }

  async listAssets(schemas: AssetSchema[] = []): Promise<AssetLists> {
    return this.call('listAssets', schemas);
  }

  async assetBalance(assetId: string): Promise<Balance> {
    return this.call('getAssetBalance', assetId);
  }

  /** An invoice paid to a blinded UTXO of this wallet. */
  async blindReceive(request: ReceiveRequest): Promise<ReceiveData> {
    return this.receive('blindReceive', request);
  }

  /** An invoice paid to a new output (of this wallet's address) that the payer creates. */
  async witnessReceive(request: ReceiveRequest): Promise<ReceiveData> {
    return this.receive('witnessReceive', request);
  }

  private async receive(method: 'blindReceive' | 'witnessReceive', request: ReceiveRequest): Promise<ReceiveData> {
    assignmentAmounts(request.assignment);
    return this.call(
      method,
      request.assetId ?? null,
      JSON.stringify(request.assignment),
      integer(request.expirationTimestamp ?? inADay(), 'expirationTimestamp'),
      request.transportEndpoints,
      integer(request.minConfirmations ?? 1, 'minConfirmations'),
    );
  }

  /** Posts the consignments to the recipients' proxies; the tx is broadcast once they ACK (see refresh). */
  async send(request: SendRequest): Promise<SendResult> {
    for (const recipients of Object.values(request.recipientMap))
      for (const recipient of recipients) assignmentAmounts(recipient.assignment);
    return this.call(
      'send',
      this.onlineHandle,
      request.recipientMap,
      request.donation ?? false,
      integer(request.feeRateSatPerVb ?? DEFAULT_FEE_RATE_SAT_PER_VB, 'feeRateSatPerVb'),
      integer(request.minConfirmations ?? 1, 'minConfirmations'),
      integer(request.expirationTimestamp ?? inADay(), 'expirationTimestamp'),
    );
  }

  /** Moves pending transfers along: fetch, validate and ACK consignments, read ACKs, broadcast, confirm. */
  async refresh(options: { assetId?: string; skipSync?: boolean } = {}): Promise<RefreshResult> {
    return this.call('refresh', this.onlineHandle, options.assetId ?? null, [], options.skipSync ?? false);
  }

  async listTransfers(assetId?: string): Promise<Transfer[]> {
    return this.call('listTransfers', assetId ?? null);
  }

  async listUnspents(options: { settledOnly?: boolean; skipSync?: boolean } = {}): Promise<Unspent[]> {
    return this.call('listUnspents', this.onlineHandle, options.settledOnly ?? false, options.skipSync ?? false);
  }

  /** Fails pending transfers (one batch, or all that can be); true when any changed. */
  async failTransfers(
    options: { batchTransferIdx?: number; noAssetOnly?: boolean; skipSync?: boolean } = {},
  ): Promise<boolean> {
    const batch = options.batchTransferIdx === undefined ? null : integer(options.batchTransferIdx, 'batchTransferIdx');
    return this.call(
      'failTransfers',
      this.onlineHandle,
      batch,
      options.noAssetOnly ?? false,
      options.skipSync ?? false,
    );
  }

  /** Sends BTC from the vanilla keychain; returns the txid. */
  async sendBtc(
    address: string,
    amountSat: number,
    options: { feeRateSatPerVb?: number; skipSync?: boolean } = {},
  ): Promise<string> {
    return this.call(
      'sendBtc',
      this.onlineHandle,
      address,
      integer(amountSat, 'amountSat'),
      integer(options.feeRateSatPerVb ?? DEFAULT_FEE_RATE_SAT_PER_VB, 'feeRateSatPerVb'),
      options.skipSync ?? false,
    );
  }

  /** Drops the wallet (its data stays in dataDir). */
  async close(): Promise<void> {
    await rgbLibRequest({ op: 'close', wallet: this.number });
  }
}
