// A raw transaction given for broadcast must be exactly one serialized transaction. btcd decodes
// the front of what it is given and ignores the rest, so a transaction with bytes after it would be
// relayed as if nothing were wrong; Bitcoin Core refuses it ("TX decode failed"), and the lab's
// services refuse it before the node sees it.
import { Transaction } from 'bitcoinjs-lib';

/** Why the hex is not one transaction; the message completes "the raw transaction …". */
export class RawTransactionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RawTransactionError';
  }
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

export function decodeRawTransaction(hex: string): Transaction {
  if (!HEX.test(hex)) throw new RawTransactionError('is not hex: it must be an even number of 0-9a-f characters');
  const bytes = Buffer.from(hex, 'hex');
  let tx: Transaction;
  try {
    tx = Transaction.fromBuffer(bytes, true);
  } catch (error) {
    throw new RawTransactionError(
      `is not a serialized transaction: its ${bytes.length} bytes do not decode as one (${(error as Error).message})`,
    );
  }
  const extra = bytes.length - tx.byteLength();
  if (extra > 0)
    throw new RawTransactionError(
      `has ${extra} byte${extra === 1 ? '' : 's'} after the ${tx.byteLength()}-byte transaction: send the transaction alone`,
    );
  return tx;
}
