// What the wallet thread does: rgb-lib's calls, one at a time, on the node's one wallet. rgb-lib is
// synchronous (a call blocks its thread for as long as it talks to the indexer or the proxy), so it
// runs here, off the HTTP thread. Amounts arrive as numbers and are handed to the binding as text.
import { mkdirSync } from 'node:fs';
import type { LibAssignment, LibKeys, LibOnline, LibRecipient, LibWallet, RgbLib } from './binding.js';

/** The keys a wallet is opened with (what /init stored, decrypted by /unlock). */
export type WalletKeys = Omit<LibKeys, 'xpub'>;

/** RLN keeps one RGB allocation per UTXO; so does this node. */
const MAX_ALLOCATIONS_PER_UTXO = '1';
const SUPPORTED_SCHEMAS = ['Nia', 'Cfa', 'Uda'];
/** How many unused vanilla addresses a sync looks past (rgb-lib's own default). */
const VANILLA_SYNC_LOOKBACK = 20;

const text = (value: number | null | undefined) => (value === null || value === undefined ? null : String(value));

export function walletOps(lib: RgbLib) {
  let open: { wallet: LibWallet; online: LibOnline } | undefined;
  const current = () => {
    if (!open) throw new Error('the wallet is not open');
    return open;
  };
  return {
    generateKeys: () => lib.generateKeys('Regtest', 'SegWitV0'),
    restoreKeys: (mnemonic: string) => lib.restoreKeys('Regtest', mnemonic, 'SegWitV0'),
    decodeInvoice: (invoice: string) => lib.invoiceData(invoice),

    /** Opens the wallet in `dataDir` and goes online; closes it again if going online fails. */
    open(dataDir: string, keys: WalletKeys, indexerUrl: string): void {
      if (open) throw new Error('the wallet is already open');
      mkdirSync(dataDir, { recursive: true });
      const walletData = new lib.WalletData({ dataDir, bitcoinNetwork: 'Regtest', databaseType: 'Sqlite', maxAllocationsPerUtxo: MAX_ALLOCATIONS_PER_UTXO, supportedSchemas: SUPPORTED_SCHEMAS });
      const wallet = new lib.Wallet(walletData, new lib.SinglesigKeys({ ...keys, vanillaKeychain: null }));
      try {
        open = { wallet, online: wallet.goOnline({ indexerUrl, skipConsistencyCheck: false, vanillaSyncLookback: VANILLA_SYNC_LOOKBACK }) };
      } catch (error) {
        wallet.drop();
        throw error;
      }
    },
    close(): void {
      open?.wallet.drop();
      open = undefined;
    },

    address: () => current().wallet.getAddress(),
    btcBalance: (skipSync: boolean) => current().wallet.getBtcBalance(current().online, skipSync),
    createUtxos: (request: { upTo: boolean; num: number; size: number; feeRate: number; skipSync: boolean }) =>
      Number(current().wallet.createUtxos(current().online, request.upTo, String(request.num), String(request.size), String(request.feeRate), request.skipSync)),
    sendBtc: (request: { address: string; amount: number; feeRate: number; skipSync: boolean }) =>
      current().wallet.sendBtc(current().online, request.address, String(request.amount), String(request.feeRate), request.skipSync),
    listUnspents: (skipSync: boolean) => current().wallet.listUnspents(current().online, false, skipSync),

    issueNia: (request: { ticker: string; name: string; precision: number; amounts: number[] }) =>
      current().wallet.issueAssetNIA(request.ticker, request.name, String(request.precision), request.amounts.map(String)),
    issueCfa: (request: { name: string; details: string | null; precision: number; amounts: number[] }) =>
      current().wallet.issueAssetCFA(request.name, request.details, String(request.precision), request.amounts.map(String), null),
    issueUda: (request: { ticker: string; name: string; details: string | null; precision: number }) =>
      current().wallet.issueAssetUDA(request.ticker, request.name, request.details, String(request.precision), null, []),
    listAssets: (schemas: string[]) => current().wallet.listAssets(schemas),
    assetBalance: (assetId: string) => current().wallet.getAssetBalance(assetId),

    receive: (request: { witness: boolean; assetId: string | null; assignment: LibAssignment; expirationTimestamp: number; transportEndpoints: string[]; minConfirmations: number }) =>
      current().wallet[request.witness ? 'witnessReceive' : 'blindReceive'](
        request.assetId,
        JSON.stringify(request.assignment),
        String(request.expirationTimestamp),
        request.transportEndpoints,
        String(request.minConfirmations),
      ),
    send(request: { recipientMap: Record<string, LibRecipient[]>; donation: boolean; feeRate: number; minConfirmations: number; expirationTimestamp: number }): string {
      const sent = current().wallet.send(current().online, request.recipientMap, request.donation, String(request.feeRate), String(request.minConfirmations), String(request.expirationTimestamp));
      return typeof sent === 'string' ? sent : sent.txid;
    },
    refresh: (skipSync: boolean) => void current().wallet.refresh(current().online, null, [], skipSync),
    listTransfers: (assetId: string) => current().wallet.listTransfers(assetId),
    failTransfers: (request: { batchTransferIdx: number | null; noAssetOnly: boolean; skipSync: boolean }) =>
      current().wallet.failTransfers(current().online, text(request.batchTransferIdx), request.noAssetOnly, request.skipSync),
  };
}

export type WalletOps = ReturnType<typeof walletOps>;
