import { createHash } from 'node:crypto';

export function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

export function sha256d(data: Uint8Array): Buffer {
  return sha256(sha256(data));
}

/** Byte-reversed hex: how txids, block hashes and script hashes are shown (internal order is reversed). */
export function toDisplayHex(internal: Uint8Array): string {
  return Buffer.from(internal).reverse().toString('hex');
}

export function fromDisplayHex(hex: string): Buffer {
  return Buffer.from(hex, 'hex').reverse();
}

/** The Electrum script hash in internal order: sha256 of the scriptPubKey (shown byte-reversed). */
export function scriptHash(scriptPubKey: Uint8Array): Buffer {
  return sha256(scriptPubKey);
}

export interface HistoryItem {
  txHash: string;
  /** Block height; 0 for a mempool tx, -1 for a mempool tx with an unconfirmed input. */
  height: number;
}

/** Electrum status of a script hash: sha256 of "txid:height:" for each history item, or null when empty. */
export function statusHash(history: readonly HistoryItem[]): string | null {
  if (history.length === 0) return null;
  const text = history.map((item) => `${item.txHash}:${item.height}:`).join('');
  return sha256(Buffer.from(text, 'ascii')).toString('hex');
}

/**
 * The Merkle branch of leaf `index` among `leaves` (internal byte order), bottom-up, as Bitcoin
 * builds it (an odd level duplicates its last hash), together with the root.
 */
export function merkleBranch(leaves: readonly Uint8Array[], index: number): { branch: Buffer[]; root: Buffer } {
  if (leaves.length === 0) throw new Error('a Merkle tree needs at least one leaf');
  if (index < 0 || index >= leaves.length) throw new Error(`leaf ${index} is outside 0..${leaves.length - 1}`);
  let level: Buffer[] = leaves.map((leaf) => Buffer.from(leaf));
  let position = index;
  const branch: Buffer[] = [];
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    branch.push(level[position ^ 1]!);
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i]!, level[i + 1]!])));
    level = next;
    position >>= 1;
  }
  return { branch, root: level[0]! };
}
