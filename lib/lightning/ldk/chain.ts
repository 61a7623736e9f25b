// What the LDK client reads from the chain node its daemon follows: LDK names a channel of its graph
// by its short channel id (block x transaction x output), not by its funding transaction, and it
// broadcasts through a background queue, so its transactions reach the mempool a moment after its
// API answers.
import type { RpcChainDriver } from '../../chain/rpc-driver.js';
import { waitFor } from '../../wait.js';

interface VerboseTransaction {
  blockhash?: string;
  vin: { txid?: string; vout?: number }[];
}

/** "height x index" of a confirmed transaction, the prefix of its outputs' short channel ids. */
export class FundingPositions {
  private readonly confirmed = new Map<string, string>();

  constructor(private readonly chain: RpcChainDriver) {}

  /** The prefix, or undefined while the transaction is unconfirmed. */
  async prefixOf(txid: string): Promise<string | undefined> {
    const known = this.confirmed.get(txid);
    if (known) return known;
    const transaction = await this.chain.call<VerboseTransaction>('getrawtransaction', [txid, 1]);
    if (!transaction.blockhash) return undefined;
    const block = await this.chain.getBlockSummary(transaction.blockhash);
    const prefix = `${block.height}x${block.txids.indexOf(txid)}x`;
    this.confirmed.set(txid, prefix);
    return prefix;
  }
}

export function waitInMempool(chain: RpcChainDriver, txid: string, timeoutMs = 30_000): Promise<unknown> {
  return waitFor(async () => (await chain.getRawMempool()).includes(txid), {
    timeoutMs,
    intervalMs: 100,
    what: `transaction ${txid} in btcd's mempool`,
  });
}

/** The transaction of the mempool that spends `txid:vout` (a channel's closing transaction). */
export function waitSpendInMempool(
  chain: RpcChainDriver,
  outpoint: { txid: string; vout: number },
  timeoutMs = 30_000,
): Promise<string> {
  return waitFor(
    async () => {
      for (const candidate of await chain.getRawMempool()) {
        const transaction = await chain.call<VerboseTransaction>('getrawtransaction', [candidate, 1]);
        if (transaction.vin.some((input) => input.txid === outpoint.txid && input.vout === outpoint.vout))
          return candidate;
      }
      return undefined;
    },
    { timeoutMs, intervalMs: 150, what: `a transaction spending ${outpoint.txid}:${outpoint.vout} in btcd's mempool` },
  );
}
