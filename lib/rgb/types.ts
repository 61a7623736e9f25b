// The shapes rgb-lib's binding answers with (camelCase JSON). Amounts are JSON numbers there:
// exact up to 2^53, which RgbWallet enforces on what it sends.

export type WitnessVersion = 'SegWitV0' | 'Taproot';
export type AssetSchema = 'Nia' | 'Cfa' | 'Uda';

export interface RgbKeys {
  mnemonic: string;
  xpub: string;
  accountXpubVanilla: string;
  accountXpubColored: string;
  masterFingerprint: string;
  witnessVersion: WitnessVersion;
}

export interface Balance {
  settled: number;
  future: number;
  spendable: number;
}

export interface BtcBalance {
  vanilla: Balance;
  colored: Balance;
}

export interface Media {
  filePath: string;
  digest: string;
  mime: string;
}

interface AssetCommon {
  assetId: string;
  name: string;
  details: string | null;
  precision: number;
  timestamp: number;
  addedAt: number;
  balance: Balance;
}

export interface AssetNia extends AssetCommon {
  ticker: string;
  issuedSupply: number;
  media: Media | null;
}

export interface AssetCfa extends AssetCommon {
  issuedSupply: number;
  media: Media | null;
}

export interface AssetUda extends AssetCommon {
  ticker: string;
  token: {
    index: number;
    ticker: string | null;
    name: string | null;
    details: string | null;
    embeddedMedia: boolean;
    media: Media | null;
    attachments: Record<string, Media>;
    reserves: boolean;
  } | null;
}

/** listAssets: the assets of each schema asked for, null for a schema not asked for. */
export interface AssetLists {
  nia: AssetNia[] | null;
  cfa: AssetCfa[] | null;
  uda: AssetUda[] | null;
}

export type Assignment = { Fungible: number } | 'NonFungible' | { InflationRight: number } | 'Any';

export interface ReceiveData {
  invoice: string;
  recipientId: string;
  expirationTimestamp: number | null;
  batchTransferIdx: number;
}

/** What an RGB invoice asks for (rgb-lib's invoiceData). */
export interface InvoiceData {
  recipientId: string;
  assetSchema: AssetSchema | null;
  assetId: string | null;
  assignment: Assignment;
  network: string;
  expirationTimestamp: number | null;
  transportEndpoints: string[];
}

export interface Recipient {
  recipientId: string;
  /** For a witness recipient: the sats of the output the payer creates for it. */
  witnessData: { amountSat: number; blinding: number | null } | null;
  assignment: Assignment;
  transportEndpoints: string[];
}

export interface SendResult {
  txid: string;
  batchTransferIdx: number;
}

export type TransferStatus =
  | 'WaitingCounterparty'
  | 'WaitingBroadcast'
  | 'WaitingSafeHeight'
  | 'WaitingConfirmations'
  | 'Settled'
  | 'Failed';
export type TransferKind = 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';

export interface Outpoint {
  txid: string;
  vout: number;
}

export interface Transfer {
  idx: number;
  batchTransferIdx: number;
  createdAt: number;
  updatedAt: number;
  status: TransferStatus;
  requestedAssignment: Assignment | null;
  assignments: Assignment[];
  kind: TransferKind;
  txid: string | null;
  recipientId: string | null;
  receiveUtxo: Outpoint | null;
  changeUtxo: Outpoint | null;
  expirationTimestamp: number | null;
  transportEndpoints: { endpoint: string; transportType: string; used: boolean }[];
  invoiceString: string | null;
}

/** Per batch transfer index: its new status, or why it could not be refreshed. */
export type RefreshResult = Record<string, { updatedStatus: TransferStatus | null; failure: unknown }>;

export interface Unspent {
  utxo: { outpoint: Outpoint; btcAmount: number; colorable: boolean; exists: boolean };
  rgbAllocations: { assetId: string | null; assignment: Assignment; settled: boolean }[];
  pendingBlinded: number;
}
