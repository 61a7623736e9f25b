// What the adapter's POST /api/tx and the indexer's blockchain.transaction.broadcast take as a raw
// transaction: exactly one, as Bitcoin Core takes it (btcd ignores bytes after the transaction).
import { Transaction } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { decodeRawTransaction, RawTransactionError } from '../../lib/bitcoin/raw-tx.js';

function sampleTransaction(witness: boolean): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  tx.addInput(Buffer.alloc(32, 7), 1);
  tx.addOutput(Buffer.from('0014'.padEnd(44, 'ab'), 'hex'), 90_000n);
  if (witness) tx.setWitness(0, [Buffer.alloc(71, 1), Buffer.alloc(33, 2)]);
  return tx;
}

const refusal = (hex: string) => {
  try {
    decodeRawTransaction(hex);
  } catch (error) {
    expect(error).toBeInstanceOf(RawTransactionError);
    return (error as Error).message;
  }
  throw new Error(`${hex} was taken`);
};

describe('a raw transaction for broadcast', () => {
  it('is taken when it is one whole transaction, with or without witnesses, in either case of hex', () => {
    for (const tx of [sampleTransaction(false), sampleTransaction(true)]) {
      expect(decodeRawTransaction(tx.toHex()).getId()).toBe(tx.getId());
      expect(decodeRawTransaction(tx.toHex().toUpperCase()).getId()).toBe(tx.getId());
    }
  });

  it('is refused with the count of bytes after the transaction', () => {
    const hex = sampleTransaction(true).toHex();
    expect(refusal(`${hex}00`)).toMatch(/has 1 byte after the \d+-byte transaction: send the transaction alone/);
    expect(refusal(`${hex}deadbeef`)).toMatch(/has 4 bytes after/);
    expect(refusal(`${sampleTransaction(false).toHex()}${sampleTransaction(false).toHex()}`)).toMatch(/bytes after/);
  });

  it('is refused when cut short, not hex, odd-length or empty', () => {
    const hex = sampleTransaction(false).toHex();
    expect(refusal(hex.slice(0, -2))).toMatch(/is not a serialized transaction/);
    expect(refusal('0200000000')).toMatch(/is not a serialized transaction/);
    for (const bad of ['zz', `${hex}0`, '', '0x00', 'ab cd']) expect(refusal(bad)).toMatch(/is not hex/);
  });
});
