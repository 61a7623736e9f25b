// blockchain.transaction.get(txid, true): the transaction in bitcoind's getrawtransaction verbose
// shape, which is what Electrum servers over Bitcoin Core pass on and what rgb-lib reads
// (`hex`, `confirmations`, `blocktime`).
import { Transaction } from 'bitcoinjs-lib';
import { sha256d, toDisplayHex } from './hashes.js';
import { scriptAsm, scriptPubKeyJson, type ScriptPubKeyJson } from './script-json.js';

/** Where a confirmed transaction is, as the index sees the chain. */
export interface BlockPlace {
  hash: string;
  height: number;
  /** The block header's time, Unix seconds. */
  time: number;
  tipHeight: number;
}

type VerboseInput =
  | { coinbase: string; txinwitness?: string[]; sequence: number }
  | { txid: string; vout: number; scriptSig: { asm: string; hex: string }; txinwitness?: string[]; sequence: number };

export interface VerboseTransaction {
  txid: string;
  hash: string;
  version: number;
  size: number;
  vsize: number;
  weight: number;
  locktime: number;
  vin: VerboseInput[];
  vout: { value: number; n: number; scriptPubKey: ScriptPubKeyJson }[];
  hex: string;
  /** Only for a confirmed transaction, as bitcoind does. */
  blockhash?: string;
  confirmations?: number;
  time?: number;
  blocktime?: number;
}

const SAT_PER_BTC = 100_000_000;

function inputJson(input: Transaction['ins'][number], coinbase: boolean): VerboseInput {
  const witness =
    input.witness.length > 0 ? { txinwitness: input.witness.map((item) => Buffer.from(item).toString('hex')) } : {};
  const script = Buffer.from(input.script);
  if (coinbase) return { coinbase: script.toString('hex'), ...witness, sequence: input.sequence };
  return {
    txid: toDisplayHex(input.hash),
    vout: input.index,
    scriptSig: { asm: scriptAsm(script, true), hex: script.toString('hex') },
    ...witness,
    sequence: input.sequence,
  };
}

export function verboseTransaction(hex: string, block?: BlockPlace): VerboseTransaction {
  const tx = Transaction.fromHex(hex);
  const coinbase = tx.isCoinbase();
  return {
    txid: tx.getId(),
    // the wtxid: the hash of the serialization with witnesses (bitcoinjs answers zeros for a coinbase)
    hash: toDisplayHex(sha256d(Buffer.from(hex, 'hex'))),
    version: tx.version,
    size: tx.byteLength(),
    vsize: tx.virtualSize(),
    weight: tx.weight(),
    locktime: tx.locktime,
    vin: tx.ins.map((input) => inputJson(input, coinbase)),
    // A value below 2^53 sat divided once is the double nearest to bitcoind's 8-decimal figure.
    vout: tx.outs.map((output, n) => ({
      value: Number(output.value) / SAT_PER_BTC,
      n,
      scriptPubKey: scriptPubKeyJson(Buffer.from(output.script)),
    })),
    hex,
    ...(block
      ? {
          blockhash: block.hash,
          confirmations: block.tipHeight - block.height + 1,
          time: block.time,
          blocktime: block.time,
        }
      : {}),
  };
}
