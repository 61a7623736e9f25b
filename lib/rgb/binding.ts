// rgb-lib's npm binding: a small SWIG addon (built by node-gyp at `npm install`) over rgb-lib's
// prebuilt C library. It is CommonJS, so it is loaded through createRequire. Its calls are
// synchronous and block the thread for as long as rgb-lib talks to the indexer and the proxy;
// they run on the process's one rgb-lib thread (rgb-lib-thread.ts).
import { createRequire } from 'node:module';
import type { InvoiceData, RgbKeys, WitnessVersion } from './types.js';

export const RGB_LIB_PACKAGE = '@rgb-tools/rgb-lib-linux-x64';

/** What the binding's Wallet takes to open a wallet (every integer as a string, see wallet.ts). */
export interface BindingWalletData {
  dataDir: string;
  bitcoinNetwork: 'Regtest';
  databaseType: 'Sqlite';
  maxAllocationsPerUtxo: string;
  supportedSchemas: string[];
}

/** The binding's keys: what generateKeys returns, plus `vanillaKeychain` (null: rgb-lib's default). */
export type BindingKeys = RgbKeys & { vanillaKeychain: string | null };

/** The binding's wallet: each method validates its arguments, calls rgb-lib and parses its JSON answer. */
export type BindingWallet = Record<string, (...args: unknown[]) => unknown> & { drop(): void };

export interface RgbLibBinding {
  generateKeys(network: 'Regtest', witnessVersion: WitnessVersion): RgbKeys;
  restoreKeys(network: 'Regtest', mnemonic: string, witnessVersion: WitnessVersion): RgbKeys;
  invoiceData(invoice: string): InvoiceData;
  WalletData: new (data: BindingWalletData) => BindingWalletData;
  SinglesigKeys: new (keys: BindingKeys) => BindingKeys;
  Wallet: new (data: BindingWalletData, keys: BindingKeys) => BindingWallet;
}

/** The SWIG module under the wrapper, for a call whose wrapper check is wrong (rgb-lib-worker.ts). */
export interface RgbLibNative {
  rgblib_fail_transfers(
    wallet: unknown,
    online: string,
    batchTransferIdx: string | null,
    noAssetOnly: boolean,
    skipSync: boolean,
  ): string;
}

/** The same module the wrapper loaded (Node's module cache), not a second copy of the addon. */
export function loadRgbLibNative(): RgbLibNative {
  loadRgbLib();
  return createRequire(import.meta.url)(`${RGB_LIB_PACKAGE}/rgblib`) as RgbLibNative;
}

let loaded: RgbLibBinding | undefined;

export function loadRgbLib(): RgbLibBinding {
  if (loaded) return loaded;
  try {
    loaded = createRequire(import.meta.url)(RGB_LIB_PACKAGE) as RgbLibBinding;
    return loaded;
  } catch (error) {
    throw new Error(
      `rgb-lib's npm binding (${RGB_LIB_PACKAGE}) cannot be loaded: ${(error as Error).message}. ` +
        'Run `npm install` in the project folder; it builds the binding with node-gyp, which needs make, g++ and python3 (Debian: build-essential python3).',
      { cause: error },
    );
  }
}
