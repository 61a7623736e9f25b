// LNURL (LUD-01): a URL as bech32 with the human-readable part "lnurl", in upper case, the form
// wallets read from text and QR codes alike.
import { bech32 } from 'bech32';

/** bech32's limit of 90 characters is too short for URLs; LNURLs are read up to this length. */
const LNURL_MAX_LENGTH = 1023;

export function encodeLnurl(url: string): string {
  return bech32.encode('lnurl', bech32.toWords(Buffer.from(url, 'utf8')), LNURL_MAX_LENGTH).toUpperCase();
}
