// The npm binding of rgb-lib (@rgb-tools/rgb-lib-linux-x64) as this node uses it: what its calls
// take and give back. The binding takes every integer as a decimal string and answers camelCase
// JSON; it throws Errors whose message names rgb-lib's error (see rgb-lib-error.ts).
import { createRequire } from 'node:module';

export type LibAssignment = { Fungible: number } | { InflationRight: number } | 'NonFungible' | 'ReplaceRight' | 'Any';

export interface LibKeys {
  mnemonic: string;
  xpub: string;
  accountXpubVanilla: string;
  accountXpubColored: string;
  masterFingerprint: string;
  witnessVersion: string;
}

export interface LibBalance {
  settled: number;
  future: number;
  spendable: number;
}

export interface LibMedia {
  filePath: string;
  digest: string;
  mime: string;
}

interface LibAssetCommon {
  assetId: string;
  name: string;
  details: string | null;
  precision: number;
  timestamp: number;
  addedAt: number;
  balance: LibBalance;
}

export interface LibAssetNia extends LibAssetCommon {
  ticker: string;
  issuedSupply: number;
  media: LibMedia | null;
}

export interface LibAssetCfa extends LibAssetCommon {
  issuedSupply: number;
  media: LibMedia | null;
}

export interface LibAssetUda extends LibAssetCommon {
  ticker: string;
  token: { index: number; ticker: string | null; name: string | null; details: string | null; embeddedMedia: boolean; media: LibMedia | null; attachments: Record<string, LibMedia>; reserves: boolean } | null;
}

export interface LibAssets {
  nia: LibAssetNia[] | null;
  cfa: LibAssetCfa[] | null;
  uda: LibAssetUda[] | null;
}

export interface LibOutpoint {
  txid: string;
  vout: number;
}

export interface LibReceiveData {
  invoice: string;
  recipientId: string;
  expirationTimestamp: number | null;
  batchTransferIdx: number;
}

export interface LibInvoiceData {
  recipientId: string;
  assetSchema: 'Nia' | 'Cfa' | 'Uda' | null;
  assetId: string | null;
  assignment: LibAssignment;
  network: string;
  expirationTimestamp: number | null;
  transportEndpoints: string[];
}

export interface LibTransfer {
  idx: number;
  batchTransferIdx: number;
  createdAt: number;
  updatedAt: number;
  status: 'WaitingCounterparty' | 'WaitingBroadcast' | 'WaitingConfirmations' | 'Settled' | 'Failed';
  requestedAssignment: LibAssignment | null;
  assignments: LibAssignment[];
  kind: 'Issuance' | 'ReceiveBlind' | 'ReceiveWitness' | 'Send' | 'Inflation';
  txid: string | null;
  recipientId: string | null;
  receiveUtxo: LibOutpoint | null;
  changeUtxo: LibOutpoint | null;
  expirationTimestamp: number | null;
  transportEndpoints: { endpoint: string; transportType: string; used: boolean }[];
}

export interface LibUnspent {
  utxo: { outpoint: LibOutpoint; btcAmount: number; colorable: boolean };
  rgbAllocations: { assetId: string | null; assignment: LibAssignment; settled: boolean }[];
}

export interface LibRecipient {
  recipientId: string;
  witnessData: { amountSat: number; blinding: number | null } | null;
  assignment: LibAssignment;
  transportEndpoints: string[];
}

/** What goOnline gives back; every online call takes it again. */
export interface LibOnline {
  id: string;
}

export interface LibWallet {
  drop(): void;
  goOnline(options: { indexerUrl: string; skipConsistencyCheck: boolean; vanillaSyncLookback: number }): LibOnline;
  getAddress(): string;
  getBtcBalance(online: LibOnline | null, skipSync: boolean): { vanilla: LibBalance; colored: LibBalance };
  createUtxos(online: LibOnline, upTo: boolean, num: string | null, size: string | null, feeRate: string, skipSync: boolean): string;
  issueAssetNIA(ticker: string, name: string, precision: string, amounts: string[]): LibAssetNia;
  issueAssetCFA(name: string, details: string | null, precision: string, amounts: string[], filePath: string | null): LibAssetCfa;
  issueAssetUDA(ticker: string, name: string, details: string | null, precision: string, mediaFilePath: string | null, attachmentsFilePaths: string[]): LibAssetUda;
  listAssets(filterAssetSchemas: string[]): LibAssets;
  getAssetBalance(assetId: string): LibBalance;
  blindReceive(assetId: string | null, assignment: string, expirationTimestamp: string, transportEndpoints: string[], minConfirmations: string): LibReceiveData;
  witnessReceive(assetId: string | null, assignment: string, expirationTimestamp: string, transportEndpoints: string[], minConfirmations: string): LibReceiveData;
  send(online: LibOnline, recipientMap: Record<string, LibRecipient[]>, donation: boolean, feeRate: string, minConfirmations: string, expirationTimestamp: string): { txid: string; batchTransferIdx?: number } | string;
  refresh(online: LibOnline, assetId: string | null, filter: string[], skipSync: boolean): unknown;
  listTransfers(assetId: string | null): LibTransfer[];
  listUnspents(online: LibOnline, settledOnly: boolean, skipSync: boolean): LibUnspent[];
  failTransfers(online: LibOnline, batchTransferIdx: string | null, noAssetOnly: boolean, skipSync: boolean): boolean;
  sendBtc(online: LibOnline, address: string, amount: string, feeRate: string, skipSync: boolean): string;
}

export interface RgbLib {
  generateKeys(network: 'Regtest', witnessVersion: 'SegWitV0'): LibKeys;
  restoreKeys(network: 'Regtest', mnemonic: string, witnessVersion: 'SegWitV0'): LibKeys;
  invoiceData(invoice: string): LibInvoiceData;
  WalletData: new (data: { dataDir: string; bitcoinNetwork: 'Regtest'; databaseType: 'Sqlite'; maxAllocationsPerUtxo: string; supportedSchemas: string[] }) => object;
  SinglesigKeys: new (keys: Omit<LibKeys, 'xpub'> & { vanillaKeychain: null }) => object;
  Wallet: new (walletData: object, keys: object) => LibWallet;
}

export function loadRgbLib(): RgbLib {
  return createRequire(import.meta.url)('@rgb-tools/rgb-lib-linux-x64') as RgbLib;
}
