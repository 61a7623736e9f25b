import { sha256 } from '@noble/hashes/sha2.js';

/**
 * BIP37 merkle block proving that one transaction is in a block, serialized as Bitcoin Core's
 * `gettxoutproof` and Esplora's `GET /tx/:txid/merkleblock-proof` give it: the 80-byte header, the
 * block's transaction count (uint32 LE), the partial merkle tree's hashes (a compact-size count,
 * then 32 bytes each in internal byte order) and its flag bits (a compact-size count of bytes, bits
 * packed least significant first). Built like Bitcoin Core's CPartialMerkleTree.
 *
 * `txids` are the block's transaction ids in block order, in display hex (as getblock lists them).
 */
export function merkleBlockHex(headerHex: string, txids: readonly string[], txid: string): string {
  const header = Buffer.from(headerHex, 'hex');
  if (header.length !== 80) throw new Error(`a block header is 80 bytes, got ${header.length}`);
  const position = txids.indexOf(txid);
  if (position < 0) throw new Error(`transaction ${txid} is not in the block`);
  const leaves = txids.map((id) => Buffer.from(id, 'hex').reverse());
  const count = leaves.length;
  const width = (height: number) => (count + (1 << height) - 1) >> height;
  const hashAt = (height: number, pos: number): Buffer => {
    if (height === 0) return leaves[pos]!;
    const left = hashAt(height - 1, pos * 2);
    const right = pos * 2 + 1 < width(height - 1) ? hashAt(height - 1, pos * 2 + 1) : left;
    return Buffer.from(sha256(sha256(Buffer.concat([left, right]))));
  };
  let treeHeight = 0;
  while (width(treeHeight) > 1) treeHeight++;

  const hashes: Buffer[] = [];
  const bits: boolean[] = [];
  const walk = (height: number, pos: number) => {
    // Is the matched transaction below this node?
    const parentOfMatch = position >> height === pos;
    bits.push(parentOfMatch);
    if (height === 0 || !parentOfMatch) {
      hashes.push(hashAt(height, pos));
      return;
    }
    walk(height - 1, pos * 2);
    if (pos * 2 + 1 < width(height - 1)) walk(height - 1, pos * 2 + 1);
  };
  walk(treeHeight, 0);

  const flags = Buffer.alloc(Math.ceil(bits.length / 8));
  bits.forEach((bit, i) => {
    if (bit) flags[i >> 3]! |= 1 << (i & 7);
  });
  const total = Buffer.alloc(4);
  total.writeUInt32LE(count);
  return Buffer.concat([
    header,
    total,
    compactSize(hashes.length),
    ...hashes,
    compactSize(flags.length),
    flags,
  ]).toString('hex');
}

function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const buffer = Buffer.alloc(3);
    buffer[0] = 0xfd;
    buffer.writeUInt16LE(n, 1);
    return buffer;
  }
  const buffer = Buffer.alloc(5);
  buffer[0] = 0xfe;
  buffer.writeUInt32LE(n, 1);
  return buffer;
}
