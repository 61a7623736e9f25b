import { createHash } from 'node:crypto';
import { Block, Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { merkleBranch, scriptHash, sha256d, statusHash, toDisplayHex } from '../../services/indexer/src/hashes.js';

/** What a client does with a proof: fold the leaf with its branch up to the root. */
function foldBranch(leaf: Buffer, branch: Buffer[], index: number): Buffer {
  return branch.reduce(
    (hash, sibling, level) =>
      sha256d((index >> level) & 1 ? Buffer.concat([sibling, hash]) : Buffer.concat([hash, sibling])),
    leaf,
  );
}

function dummyTransactions(count: number): Transaction[] {
  return Array.from({ length: count }, (_, i) => {
    const tx = new Transaction();
    tx.addInput(Buffer.alloc(32, i + 1), i);
    tx.addOutput(Buffer.from([0x51]), BigInt(i));
    return tx;
  });
}

describe('script hash', () => {
  it('matches the Electrum protocol documentation example (genesis P2PKH address)', () => {
    const script = Buffer.from('76a91462e907b15cbf27d5425399ebf6f0fb50ebb88f1888ac', 'hex');
    expect(scriptHash(script).toString('hex')).toBe('6191c3b590bfcfa0475e877c302da1e323497acf3b42c08d8fa28e364edf018b');
    expect(toDisplayHex(scriptHash(script))).toBe('8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161');
  });
});

describe('status hash', () => {
  it('is null for an empty history', () => {
    expect(statusHash([])).toBeNull();
  });

  it('hashes "txid:height:" of every item in order', () => {
    const a = 'aa'.repeat(32);
    const b = 'bb'.repeat(32);
    const expected = createHash('sha256').update(`${a}:101:${b}:0:`).digest('hex');
    expect(
      statusHash([
        { txHash: a, height: 101 },
        { txHash: b, height: 0 },
      ]),
    ).toBe(expected);
    expect(
      statusHash([
        { txHash: b, height: 0 },
        { txHash: a, height: 101 },
      ]),
    ).not.toBe(expected);
  });
});

describe('merkle branch', () => {
  it('proves every position of trees of 1 to 9 leaves against the root bitcoinjs computes', () => {
    for (let count = 1; count <= 9; count++) {
      const txs = dummyTransactions(count);
      const leaves = txs.map((tx) => Buffer.from(tx.getHash()));
      const expectedRoot = Buffer.from(Block.calculateMerkleRoot(txs));
      for (let index = 0; index < count; index++) {
        const { branch, root } = merkleBranch(leaves, index);
        expect(root.equals(expectedRoot)).toBe(true);
        expect(foldBranch(leaves[index]!, branch, index).equals(expectedRoot)).toBe(true);
      }
    }
  });

  it('has an empty branch for a block with only a coinbase', () => {
    const leaf = Buffer.alloc(32, 7);
    expect(merkleBranch([leaf], 0)).toEqual({ branch: [], root: leaf });
  });

  it('refuses a position outside the tree', () => {
    expect(() => merkleBranch([Buffer.alloc(32)], 1)).toThrow(/outside/);
  });
});
