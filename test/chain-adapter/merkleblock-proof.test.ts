import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { merkleBlockHex } from '../../services/chain-adapter/src/esplora/merkle-block.js';

const dsha = (bytes: Uint8Array) => Buffer.from(sha256(sha256(bytes)));

/** The merkle root of a block's txids (display hex), as a block header holds it (internal order). */
function merkleRoot(txids: string[]): Buffer {
  let level: Buffer[] = txids.map((id) => Buffer.from(id, 'hex').reverse());
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(dsha(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!])));
    level = next;
  }
  return level[0]!;
}

/**
 * Reads a merkle block the way a verifier does (Bitcoin Core's CPartialMerkleTree::ExtractMatches):
 * returns the header, the computed root and the matched txids with their positions.
 */
function extract(hex: string) {
  const bytes = Buffer.from(hex, 'hex');
  let at = 0;
  const take = (n: number) => bytes.subarray(at, (at += n));
  const compact = () => {
    const first = take(1)[0]!;
    if (first < 0xfd) return first;
    if (first === 0xfd) return take(2).readUInt16LE(0);
    return take(4).readUInt32LE(0);
  };
  const header = take(80);
  const count = take(4).readUInt32LE(0);
  const hashes = Array.from({ length: compact() }, () => Buffer.from(take(32)));
  const flagBytes = take(compact());
  expect(at).toBe(bytes.length);
  const bit = (i: number) => ((flagBytes[i >> 3]! >> (i & 7)) & 1) === 1;
  const width = (height: number) => (count + (1 << height) - 1) >> height;
  let height = 0;
  while (width(height) > 1) height++;
  let bitsUsed = 0;
  let hashesUsed = 0;
  const matches: { txid: string; pos: number }[] = [];
  const walk = (h: number, pos: number): Buffer => {
    const parentOfMatch = bit(bitsUsed++);
    if (h === 0 || !parentOfMatch) {
      const hash = hashes[hashesUsed++]!;
      if (h === 0 && parentOfMatch) matches.push({ txid: Buffer.from(hash).reverse().toString('hex'), pos });
      return hash;
    }
    const left = walk(h - 1, pos * 2);
    const right = pos * 2 + 1 < width(h - 1) ? walk(h - 1, pos * 2 + 1) : left;
    return dsha(Buffer.concat([left, right]));
  };
  const root = walk(height, 0);
  expect(hashesUsed).toBe(hashes.length);
  expect(Math.ceil(bitsUsed / 8)).toBe(flagBytes.length);
  return { header, count, root, matches };
}

const fakeTxid = (block: number, i: number) =>
  Buffer.from(sha256(Buffer.from(`block ${block} tx ${i}`))).toString('hex');

describe('BIP37 merkle block of /tx/:txid/merkleblock-proof', () => {
  it('proves every transaction of blocks of 1 to 33 transactions against the header merkle root', () => {
    for (let size = 1; size <= 33; size++) {
      const txids = Array.from({ length: size }, (_, i) => fakeTxid(size, i));
      const header = Buffer.alloc(80, 7);
      merkleRoot(txids).copy(header, 36);
      for (let pos = 0; pos < size; pos++) {
        const proof = extract(merkleBlockHex(header.toString('hex'), txids, txids[pos]!));
        expect(proof.header.equals(header)).toBe(true);
        expect(proof.count).toBe(size);
        expect(proof.root.equals(header.subarray(36, 68))).toBe(true);
        expect(proof.matches).toEqual([{ txid: txids[pos], pos }]);
      }
    }
  });

  it('is the header, the count and the txid alone for a block of one transaction (a coinbase)', () => {
    const txid = fakeTxid(0, 0);
    const header = Buffer.alloc(80, 1).toString('hex');
    expect(merkleBlockHex(header, [txid], txid)).toBe(
      `${header}0100000001${Buffer.from(txid, 'hex').reverse().toString('hex')}0101`,
    );
  });

  it('refuses a transaction that is not in the block', () => {
    expect(() => merkleBlockHex('00'.repeat(80), [fakeTxid(1, 0)], fakeTxid(1, 1))).toThrow(/not in the block/);
  });
});
