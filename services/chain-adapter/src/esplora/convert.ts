import { sha256 } from '@noble/hashes/sha2.js';
import { Block, type Transaction, type Network } from 'bitcoinjs-lib';
import { addressOfScript } from '../../../../lib/bitcoin/address.js';
import { scriptAsm, scriptType } from './script.js';
import type { EsploraBlock, EsploraOutput, EsploraTx, TxStatus } from './types.js';

export const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** Display-order hex of a hash held in internal byte order (txids, block hashes). */
export const reversedHex = (bytes: Uint8Array) => Buffer.from(bytes).reverse().toString('hex');

/** Outputs carry bigint satoshis; every real amount fits a JSON number exactly (< 2^53). */
const satoshis = (value: bigint | number) => Number(value);

export function toEsploraOutput(
  output: { script: Uint8Array; value: bigint | number },
  network: Network,
): EsploraOutput {
  const address = addressOfScript(output.script, network);
  return {
    scriptpubkey: toHex(output.script),
    scriptpubkey_asm: scriptAsm(output.script),
    scriptpubkey_type: scriptType(output.script),
    ...(address ? { scriptpubkey_address: address } : {}),
    value: satoshis(output.value),
  };
}

/** `parents` maps txid -> transaction for every input's previous transaction (coinbase inputs have none). */
export function toEsploraTx(
  tx: Transaction,
  parents: ReadonlyMap<string, Transaction>,
  status: TxStatus,
  network: Network,
): EsploraTx {
  const coinbase = tx.isCoinbase();
  let inputSum = 0n;
  const vin = tx.ins.map((input) => {
    const txid = reversedHex(input.hash);
    const parent = coinbase ? undefined : parents.get(txid);
    const spent = parent?.outs[input.index];
    if (!coinbase && !spent) throw new Error(`previous output ${txid}:${input.index} of ${tx.getId()} was not given`);
    if (spent) inputSum += BigInt(spent.value);
    return {
      txid,
      vout: input.index,
      prevout: spent ? toEsploraOutput(spent, network) : null,
      scriptsig: toHex(input.script),
      scriptsig_asm: scriptAsm(input.script),
      ...(input.witness.length ? { witness: input.witness.map(toHex) } : {}),
      is_coinbase: coinbase,
      sequence: input.sequence,
    };
  });
  const outputSum = tx.outs.reduce((sum, output) => sum + BigInt(output.value), 0n);
  return {
    txid: tx.getId(),
    version: tx.version,
    locktime: tx.locktime,
    size: tx.byteLength(),
    weight: tx.weight(),
    fee: coinbase ? 0 : satoshis(inputSum - outputSum),
    vin,
    vout: tx.outs.map((output) => toEsploraOutput(output, network)),
    status,
  };
}

/** The txids of the transactions an Esplora view of `tx` needs for its inputs' prevouts. */
export function parentTxids(tx: Transaction): string[] {
  return tx.isCoinbase() ? [] : [...new Set(tx.ins.map((input) => reversedHex(input.hash)))];
}

/** Block hash (display hex) and time of an 80-byte header given as hex. */
export function headerInfo(headerHex: string): { hash: string; time: number } {
  const header = Buffer.from(headerHex, 'hex');
  if (header.length !== 80) throw new Error(`a block header is 80 bytes, got ${header.length}`);
  return { hash: reversedHex(sha256(sha256(header))), time: header.readUInt32LE(68) };
}

/** Electrum history heights: > 0 confirmed at that height; 0 or -1 (unconfirmed parents) in the mempool. */
export function isConfirmedHeight(height: number): boolean {
  return height > 0;
}

/** Esplora's block object from the serialized block (with witnesses), its height and median time past. */
export function toEsploraBlock(blockHex: string, height: number, mediantime: number): EsploraBlock {
  const block = Block.fromHex(blockHex);
  return {
    id: block.getId(),
    height,
    version: block.version,
    timestamp: block.timestamp,
    tx_count: block.transactions?.length ?? 0,
    size: block.byteLength(),
    weight: block.weight(),
    merkle_root: reversedHex(block.merkleRoot!),
    previousblockhash: height === 0 ? null : reversedHex(block.prevHash!),
    mediantime,
    nonce: block.nonce,
    bits: block.bits,
    difficulty: difficultyOf(block.bits),
  };
}

/** Difficulty as nodes report it: the difficulty-1 target (bits 0x1d00ffff) over this target. */
export function difficultyOf(bits: number): number {
  const exponent = bits >>> 24;
  const mantissa = bits & 0xffffff;
  return (0xffff / mantissa) * 256 ** (0x1d - exponent);
}

/** BIP-113 median time past of each block, from the timestamps of its 11 blocks up to it. */
export function medianTimes(timestamps: ReadonlyMap<number, number>, heights: number[]): Map<number, number> {
  return new Map(
    heights.map((height) => {
      const window: number[] = [];
      for (let h = Math.max(0, height - 10); h <= height; h++) window.push(timestamps.get(h)!);
      window.sort((a, b) => a - b);
      return [height, window[Math.floor(window.length / 2)]!];
    }),
  );
}
