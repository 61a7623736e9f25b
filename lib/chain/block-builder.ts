import { Block, Transaction, address as addressLib, networks, script } from 'bitcoinjs-lib';
import { randomBytes } from 'node:crypto';

/** The part of a getblocktemplate answer a block is built from. */
export interface BlockTemplate {
  version: number;
  previousblockhash: string;
  transactions: { data: string }[];
  coinbasevalue: number;
  bits: string;
  curtime: number;
  mintime?: number;
  height: number;
}

const WITNESS_COMMITMENT_HEADER = Buffer.from('aa21a9ed', 'hex');

/**
 * Builds and solves a regtest block from a template, paying the coinbase to `payTo`. This is how the
 * lab mines to any address on btcd, which has no generatetoaddress. The coinbase always carries a
 * witness commitment, so blocks with segwit transactions are valid too.
 */
export function buildRegtestBlock(template: BlockTemplate, payTo: string): Block {
  const transactions = template.transactions.map((tx) => Transaction.fromHex(tx.data));
  const coinbase = buildCoinbase(template, payTo);
  const block = new Block();
  block.version = template.version;
  block.prevHash = Buffer.from(template.previousblockhash, 'hex').reverse();
  block.timestamp = Math.max(template.curtime, template.mintime ?? 0);
  block.bits = parseInt(template.bits, 16);
  block.transactions = [coinbase, ...transactions];
  const commitment = Block.calculateMerkleRoot(block.transactions, true);
  coinbase.addOutput(
    Buffer.concat([script.compile([script.OPS.OP_RETURN, Buffer.concat([WITNESS_COMMITMENT_HEADER, commitment])])]),
    0n,
  );
  block.merkleRoot = Block.calculateMerkleRoot(block.transactions);
  block.witnessCommit = commitment;
  solve(block);
  return block;
}

function buildCoinbase(template: BlockTemplate, payTo: string): Transaction {
  const coinbase = new Transaction();
  coinbase.version = 2;
  const heightPush = script.number.encode(template.height);
  // the extra nonce keeps two coinbases of the same height and address distinct
  const scriptSig = script.compile([heightPush, randomBytes(8)]);
  coinbase.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, scriptSig);
  coinbase.setWitness(0, [Buffer.alloc(32)]);
  coinbase.addOutput(addressLib.toOutputScript(payTo, networks.regtest), BigInt(template.coinbasevalue));
  return coinbase;
}

/** Regtest's target is so easy that a handful of nonces always finds a block. */
function solve(block: Block): void {
  for (let nonce = 0; nonce <= 0xffffffff; nonce++) {
    block.nonce = nonce;
    if (block.checkProofOfWork()) return;
  }
  throw new Error('no nonce solves this block: is the target a regtest one?');
}
