// An in-memory chain for unit tests of the follower and the index: blocks are built with
// bitcoinjs-lib (real serialization, no proof of work), so reorgs can be staged exactly.
import { Block, Transaction } from 'bitcoinjs-lib';
import type { ChainDriver } from '../../lib/chain/types.js';
import { scriptHash, toDisplayHex } from '../../services/indexer/src/hashes.js';

export function p2wpkhScript(seed: number): Buffer {
  return Buffer.concat([Buffer.from([0x00, 0x14]), Buffer.alloc(20, seed)]);
}

/** Display-order script hash, as an Electrum client sends it. */
export function electrumScriptHash(script: Buffer): string {
  return toDisplayHex(scriptHash(script));
}

export function coinbase(script: Buffer, value: bigint, tag: number): Transaction {
  const tx = new Transaction();
  tx.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.from([0x01, tag & 0xff, (tag >> 8) & 0xff]));
  tx.addOutput(script, value);
  return tx;
}

export function spend(
  inputs: { txid: string; vout: number }[],
  outputs: { script: Buffer; value: bigint }[],
): Transaction {
  const tx = new Transaction();
  for (const input of inputs) tx.addInput(Buffer.from(input.txid, 'hex').reverse(), input.vout);
  for (const output of outputs) tx.addOutput(output.script, output.value);
  return tx;
}

export class FakeChain {
  readonly blocks: Block[] = [];
  readonly mempool = new Map<string, Transaction>();
  private tag = 0;

  constructor() {
    this.addBlock([coinbase(p2wpkhScript(0), 50n, this.tag++)]);
  }

  /** Appends a block on top of block `parentHeight` (default: the tip), dropping any blocks above it. */
  addBlock(txs: Transaction[], parentHeight = this.blocks.length - 1): Block {
    this.blocks.length = parentHeight + 1;
    const block = new Block();
    block.version = 4;
    block.prevHash = this.blocks[parentHeight] ? Buffer.from(this.blocks[parentHeight]!.getHash()) : Buffer.alloc(32);
    block.timestamp = 1_700_000_000 + this.blocks.length;
    block.bits = 0x207fffff;
    block.nonce = this.tag;
    block.transactions = txs;
    block.merkleRoot = Block.calculateMerkleRoot(txs);
    this.blocks.push(block);
    for (const tx of txs) this.mempool.delete(tx.getId());
    return block;
  }

  /** A block whose coinbase pays `script`, plus `txs`. */
  mineTo(script: Buffer, txs: Transaction[] = [], parentHeight?: number): Block {
    return this.addBlock([coinbase(script, 50n, this.tag++), ...txs], parentHeight);
  }

  asDriver(): ChainDriver {
    const unsupported = () => Promise.reject(new Error('not part of the fake chain'));
    return {
      kind: 'btcd',
      getBlockCount: async () => this.blocks.length - 1,
      getBestBlockHash: async () => this.blocks[this.blocks.length - 1]!.getId(),
      getBlockHash: async (height) => {
        const block = this.blocks[height];
        if (!block) throw new Error(`no block at height ${height}`);
        return block.getId();
      },
      getBlockHex: async (hash) => {
        const block = this.blocks.find((b) => b.getId() === hash);
        if (!block) throw new Error(`no block ${hash}`);
        return block.toHex();
      },
      getBlocksAtHeights: async (heights) => {
        const driver = this.asDriver();
        return Promise.all(
          heights.map(async (height) => {
            const hash = await driver.getBlockHash(height);
            return { height, hash, hex: await driver.getBlockHex(hash) };
          }),
        );
      },
      getBlockHeaderHex: async (hash) => (await this.asDriver().getBlockHex(hash)).slice(0, 160),
      getRawMempool: async () => [...this.mempool.keys()],
      getRawTransactionHex: async (txid) => {
        const tx =
          this.mempool.get(txid) ?? this.blocks.flatMap((b) => b.transactions ?? []).find((t) => t.getId() === txid);
        if (!tx) throw new Error(`no tx ${txid}`);
        return tx.toHex();
      },
      sendRawTransaction: async (hex) => {
        const tx = Transaction.fromHex(hex);
        this.mempool.set(tx.getId(), tx);
        return tx.getId();
      },
      estimateFeeRate: async () => undefined,
      getBlockSummary: unsupported,
      mine: unsupported,
      getPeerCount: async () => 0,
    };
  }
}
