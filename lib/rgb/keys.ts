import { rgbLibRequest } from './rgb-lib-thread.js';
import type { RgbKeys } from './types.js';

/** A new regtest mnemonic and its account xpubs (SegWit v0, as RGB Lightning Node uses). */
export async function generateRgbKeys(): Promise<RgbKeys> {
  return (await rgbLibRequest({ op: 'module', fn: 'generateKeys', args: [] })) as RgbKeys;
}

/** The keys of an existing mnemonic (rgb-lib refuses one that is not BIP39 with InvalidMnemonic). */
export async function restoreRgbKeys(mnemonic: string): Promise<RgbKeys> {
  return (await rgbLibRequest({ op: 'module', fn: 'restoreKeys', args: [mnemonic] })) as RgbKeys;
}
