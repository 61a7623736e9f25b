import type { ChainDriver } from '../../../../lib/chain/types.js';
import { DomainError } from '../../../../lib/errors.js';
import type { ChainData } from './chain-data.js';
import type { EsploraTx } from './types.js';

/** One mempool transaction as mempool.space's views need it. */
export interface MempoolEntry {
  txid: string;
  fee: number;
  size: number;
  weight: number;
  vsize: number;
  /** Sum of its outputs, satoshis. */
  value: number;
  /** Fee per virtual byte. */
  rate: number;
  /** Txids its inputs spend. */
  spends: string[];
}

/** Block template size the projected blocks are filled to (4M weight units). */
const BLOCK_VSIZE = 1_000_000;
/** mempool.space shows this many projected blocks; the last takes all the rest. */
const PROJECTED_BLOCKS = 8;
const RECENT = 10;

const entryOf = (tx: EsploraTx): MempoolEntry => {
  const vsize = Math.ceil(tx.weight / 4);
  return {
    txid: tx.txid,
    fee: tx.fee,
    size: tx.size,
    weight: tx.weight,
    vsize,
    value: tx.vout.reduce((sum, output) => sum + output.value, 0),
    rate: tx.fee / vsize,
    spends: tx.vin.filter((input) => !input.is_coinbase).map((input) => input.txid),
  };
};

/** Fee rates at the percentiles mempool.space shows (min, 10, 25, 50, 75, 90, max), from rates sorted high to low. */
function feeRange(ratesHighToLow: number[]): number[] {
  const low = [...ratesHighToLow].reverse();
  return [0, 0.1, 0.25, 0.5, 0.75, 0.9, 1].map((q) => low[Math.min(low.length - 1, Math.floor(q * (low.length - 1)))]!);
}

/**
 * The node's mempool in Esplora's and mempool.space's shapes. The node gives the txids; the
 * transactions come through ChainData (its cache). "Recent" is the order the adapter first saw them.
 */
export class MempoolView {
  private readonly firstSeen = new Map<string, number>();
  private seen = 0;

  constructor(
    private readonly driver: ChainDriver,
    private readonly data: ChainData,
  ) {}

  async txids(): Promise<string[]> {
    const txids = await this.driver.getRawMempool();
    const present = new Set(txids);
    for (const txid of this.firstSeen.keys()) if (!present.has(txid)) this.firstSeen.delete(txid);
    for (const txid of txids) if (!this.firstSeen.has(txid)) this.firstSeen.set(txid, ++this.seen);
    return txids;
  }

  /** Every mempool transaction; one that left the mempool meanwhile is left out. */
  async entries(): Promise<MempoolEntry[]> {
    const read = await Promise.all(
      (await this.txids()).map((txid) =>
        this.data.mempoolTx(txid).then(entryOf, (error: unknown) => {
          if (error instanceof DomainError && error.kind === 'not_found') return undefined;
          throw error;
        }),
      ),
    );
    return read.filter((entry): entry is MempoolEntry => entry !== undefined);
  }

  /** Esplora's GET /mempool: count, total vsize and fee, and (fee rate, vsize) pairs from the highest rate down. */
  async summary(): Promise<{ count: number; vsize: number; total_fee: number; fee_histogram: [number, number][] }> {
    const entries = await this.entries();
    const byRate = new Map<number, number>();
    for (const entry of entries) {
      const rate = Math.floor(entry.rate);
      byRate.set(rate, (byRate.get(rate) ?? 0) + entry.vsize);
    }
    return {
      count: entries.length,
      vsize: entries.reduce((sum, entry) => sum + entry.vsize, 0),
      total_fee: entries.reduce((sum, entry) => sum + entry.fee, 0),
      fee_histogram: [...byRate].sort(([a], [b]) => b - a),
    };
  }

  /** Esplora's GET /mempool/recent: the last transactions to enter, newest first. */
  async recent(): Promise<{ txid: string; fee: number; vsize: number; value: number }[]> {
    const entries = await this.entries();
    entries.sort((a, b) => this.firstSeen.get(b.txid)! - this.firstSeen.get(a.txid)!);
    return entries.slice(0, RECENT).map(({ txid, fee, vsize, value }) => ({ txid, fee, vsize, value }));
  }

  /** mempool.space's GET /v1/fees/mempool-blocks: the mempool by fee rate, cut into the next blocks. */
  async projectedBlocks(): Promise<
    { blockSize: number; blockVSize: number; nTx: number; totalFees: number; medianFee: number; feeRange: number[] }[]
  > {
    const entries = (await this.entries()).sort((a, b) => b.rate - a.rate);
    const blocks: MempoolEntry[][] = [];
    for (const entry of entries) {
      const current = blocks.at(-1);
      const full =
        !current ||
        (blocks.length < PROJECTED_BLOCKS && current.reduce((sum, e) => sum + e.vsize, 0) + entry.vsize > BLOCK_VSIZE);
      if (full) blocks.push([entry]);
      else current.push(entry);
    }
    return blocks.map((block) => {
      const rates = block.map((entry) => entry.rate);
      return {
        blockSize: block.reduce((sum, entry) => sum + entry.size, 0),
        blockVSize: block.reduce((sum, entry) => sum + entry.vsize, 0),
        nTx: block.length,
        totalFees: block.reduce((sum, entry) => sum + entry.fee, 0),
        medianFee: rates[Math.floor(rates.length / 2)]!,
        feeRange: feeRange(rates),
      };
    });
  }

  /**
   * mempool.space's GET /v1/cpfp/:txid: the unconfirmed ancestors and descendants of a transaction and the package's
   * fee rate.
   */
  async cpfp(txid: string) {
    const entries = new Map((await this.entries()).map((entry) => [entry.txid, entry]));
    const self = entries.get(txid);
    if (!self) {
      const tx = await this.data.tx(txid); // a 404 when the node and the indexer do not know it
      const vsize = Math.ceil(tx.weight / 4);
      return {
        ancestors: [],
        descendants: [],
        bestDescendant: null,
        effectiveFeePerVsize: tx.fee / vsize,
        adjustedVsize: vsize,
      };
    }
    const related = (start: MempoolEntry, next: (entry: MempoolEntry) => MempoolEntry[]) => {
      const found = new Map<string, MempoolEntry>();
      const pending = next(start);
      while (pending.length > 0) {
        const entry = pending.pop()!;
        if (found.has(entry.txid)) continue;
        found.set(entry.txid, entry);
        pending.push(...next(entry));
      }
      return [...found.values()];
    };
    const ancestors = related(self, (entry) =>
      entry.spends.map((parent) => entries.get(parent)).filter((e): e is MempoolEntry => e !== undefined),
    );
    const descendants = related(self, (entry) => [...entries.values()].filter((e) => e.spends.includes(entry.txid)));
    const brief = ({ txid: id, fee, weight }: MempoolEntry) => ({ txid: id, fee, weight });
    const best = descendants.reduce<MempoolEntry | null>(
      (top, entry) => (!top || entry.rate > top.rate ? entry : top),
      null,
    );
    const packageFee = self.fee + ancestors.reduce((sum, entry) => sum + entry.fee, 0);
    const packageVsize = self.vsize + ancestors.reduce((sum, entry) => sum + entry.vsize, 0);
    return {
      ancestors: ancestors.map(brief),
      descendants: descendants.map(brief),
      bestDescendant: best ? brief(best) : null,
      effectiveFeePerVsize: packageFee / packageVsize,
      adjustedVsize: self.vsize,
    };
  }
}
