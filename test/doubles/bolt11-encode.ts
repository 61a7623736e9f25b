// A small BOLT11 encoder for test doubles (the RLN double signs real invoices so the server's
// decoder and checks run on them as on a real node's). Amounts in msat; regtest by default.
import { getPublicKey, signAsync } from '@noble/secp256k1';
import { createHash } from 'node:crypto';

const CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GEN = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >> i) & 1) chk ^= GEN[i]!;
  }
  return chk;
}

function bech32(hrp: string, words: number[]): string {
  const expanded = [...[...hrp].map((c) => c.charCodeAt(0) >> 5), 0, ...[...hrp].map((c) => c.charCodeAt(0) & 31)];
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => CHARSET[w]).join('')}`;
}

/** Regroups bits (8 -> 5 for words, 5 -> 8 for bytes), zero-padding the last group. */
function regroup(values: Iterable<number>, from: number, to: number): number[] {
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const v of values) {
    acc = ((acc << from) | v) & 0xffffff;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >> bits) & ((1 << to) - 1));
    }
  }
  if (bits > 0) out.push((acc << (to - bits)) & ((1 << to) - 1));
  return out;
}

const toWords = (bytes: Uint8Array) => regroup(bytes, 8, 5);
const toBytes = (words: number[]) => Uint8Array.from(regroup(words, 5, 8));

function intWords(n: bigint, minLength = 1): number[] {
  const words: number[] = [];
  for (let v = n; v > 0n; v >>= 5n) words.unshift(Number(v & 31n));
  while (words.length < minLength) words.unshift(0);
  return words;
}

function tag(type: number, data: number[]): number[] {
  return [type, data.length >> 5, data.length & 31, ...data];
}

export interface EncodeInput {
  secretKey: Uint8Array;
  paymentHash: string;
  amountMsat?: bigint;
  description?: string;
  expirySec?: number;
  timestamp?: number;
  /** RGB fields as RLN puts them: tag 30 = asset amount, tag 31 = contract id. */
  asset?: { assetId: string; amount: bigint };
  prefix?: string;
}

export async function encodeBolt11(input: EncodeInput): Promise<string> {
  const amount = input.amountMsat ? `${input.amountMsat * 10n}p` : '';
  const hrp = `ln${input.prefix ?? 'bcrt'}${amount}`;
  const words = [
    ...intWords(BigInt(input.timestamp ?? Math.floor(Date.now() / 1000)), 7),
    ...tag(1, toWords(Buffer.from(input.paymentHash, 'hex'))),
    ...tag(16, toWords(new Uint8Array(32).fill(7))),
    ...tag(13, toWords(Buffer.from(input.description ?? '', 'utf8'))),
    ...tag(6, intWords(BigInt(input.expirySec ?? 3600))),
    ...(input.asset
      ? [...tag(30, intWords(input.asset.amount)), ...tag(31, toWords(Buffer.from(input.asset.assetId, 'utf8')))]
      : []),
  ];
  const digest = createHash('sha256')
    .update(Buffer.concat([Buffer.from(hrp, 'utf8'), toBytes(words)]))
    .digest();
  const sig = await signAsync(digest, input.secretKey, { prehash: false, format: 'recovered' });
  const signature = [...sig.slice(1), sig[0]!];
  return bech32(hrp, [...words, ...toWords(Uint8Array.from(signature))]);
}

export const publicKeyHex = (secretKey: Uint8Array) => Buffer.from(getPublicKey(secretKey, true)).toString('hex');
