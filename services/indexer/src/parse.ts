import { Block, Transaction } from 'bitcoinjs-lib';
import { scriptHash, sha256d, toDisplayHex } from './hashes.js';

/** A transaction reduced to what the index needs. Hashes are in internal byte order. */
export interface IndexedTx {
  txid: Buffer;
  /** Outpoints this transaction spends (none for a coinbase). */
  spends: Outpoint[];
  outputs: { scriptHash: Buffer; value: bigint }[];
  vsize: number;
}

export interface Outpoint {
  txid: Buffer;
  vout: number;
}

export interface ParsedBlock {
  hash: Buffer;
  header: Buffer;
  prevHash: Buffer;
  txs: IndexedTx[];
}

export function parseTransaction(tx: Transaction): IndexedTx {
  return {
    txid: Buffer.from(tx.getHash()),
    spends: tx.isCoinbase() ? [] : tx.ins.map((input) => ({ txid: Buffer.from(input.hash), vout: input.index })),
    outputs: tx.outs.map((output) => ({ scriptHash: scriptHash(output.script), value: output.value })),
    vsize: tx.virtualSize(),
  };
}

export function parseTransactionHex(hex: string): IndexedTx {
  return parseTransaction(Transaction.fromHex(hex));
}

export function parseBlockHex(hex: string): ParsedBlock {
  const header = Buffer.from(hex.slice(0, 160), 'hex');
  const block = Block.fromHex(hex);
  return {
    hash: sha256d(header),
    header,
    prevHash: Buffer.from(block.prevHash ?? new Uint8Array(32)),
    txs: (block.transactions ?? []).map(parseTransaction),
  };
}

export function outpointKey(outpoint: Outpoint): string {
  return `${toDisplayHex(outpoint.txid)}:${outpoint.vout}`;
}

export function transactionHexInBlock(blockHex: string, position: number): string {
  const tx = Block.fromHex(blockHex).transactions?.[position];
  if (!tx) throw new Error(`the block has no transaction at position ${position}`);
  return tx.toHex();
}
