import { Block } from 'bitcoinjs-lib';
import { ChainRpcError, type ChainDriver } from '../../../../lib/chain/types.js';
import { notFound } from '../../../../lib/errors.js';
import type { Indexer } from '../indexer.js';
import { headerInfo, medianTimes, toEsploraBlock } from './convert.js';
import type { SeenBlocks } from './seen-blocks.js';
import type { BlockStatus, EsploraBlock } from './types.js';

/** Regtest's subsidy halving interval (mainnet's is 210,000 blocks). */
const REGTEST_HALVING_INTERVAL = 150;

/** What mempool.space adds to a block in its `v1` routes, as far as a block itself tells it. */
export interface BlockExtras {
  /** Coinbase outputs: subsidy + fees, satoshis. */
  reward: number;
  totalFees: number;
  /** Mean fee of the block's transactions other than the coinbase, satoshis. */
  avgFee: number;
  /** totalFees over the virtual size of those transactions, sat/vB. */
  avgFeeRate: number;
}

/**
 * Blocks by height or hash from the node, in Esplora's shape. The tip is the indexer's, so a list of
 * blocks never reaches past what the address answers know; median times come from its headers.
 */
export class ChainBlocks {
  constructor(
    private readonly driver: ChainDriver,
    private readonly indexer: Indexer,
    private readonly seen: SeenBlocks,
  ) {}

  /** Runs a node read for a block; the node not knowing it is a 404 naming `what`. */
  async known<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof ChainRpcError) throw notFound(`${what} is not known to the node: ${error.message}`);
      throw error;
    }
  }

  tipHeight(): Promise<number> {
    return this.indexer.tipHeight();
  }

  async tipHash(): Promise<string> {
    return headerInfo(await this.indexer.blockHeaderHex(await this.tipHeight())).hash;
  }

  /** Median times of the blocks at heights `low`..`high`, from the timestamps of their 11 blocks. */
  private async medianTimesFor(low: number, high: number): Promise<Map<number, number>> {
    const start = Math.max(0, low - 10);
    const headers = Buffer.from(await this.indexer.blockHeadersHex(start, high - start + 1), 'hex');
    const times = new Map<number, number>();
    for (let i = 0; i * 80 < headers.length; i++) times.set(start + i, headers.readUInt32LE(i * 80 + 68));
    if (!times.has(high)) throw notFound(`block height ${high} is not indexed yet`);
    return medianTimes(
      times,
      Array.from({ length: high - low + 1 }, (_, i) => low + i),
    );
  }

  /** The blocks with these hashes, each with its serialized form. */
  async byHashes(hashes: string[]): Promise<{ block: EsploraBlock; hex: string }[]> {
    const read = await Promise.all(
      hashes.map(async (hash) => ({
        hex: await this.driver.getBlockHex(hash),
        height: (await this.driver.getBlockSummary(hash)).height,
      })),
    );
    if (read.length === 0) return [];
    const heights = read.map((block) => block.height);
    const median = await this.medianTimesFor(Math.min(...heights), Math.max(...heights));
    return read.map(({ hex, height }) => ({ hex, block: toEsploraBlock(hex, height, median.get(height)!) }));
  }

  async byHash(hash: string): Promise<{ block: EsploraBlock; hex: string }> {
    return (await this.known(`block ${hash}`, () => this.byHashes([hash])))[0]!;
  }

  /** `count` blocks from `start` down (none when start is above the indexed tip, as Esplora). */
  async pageFrom(start: number, count: number): Promise<{ block: EsploraBlock; hex: string }[]> {
    if (start > (await this.tipHeight())) return [];
    const heights = Array.from({ length: Math.min(count, start + 1) }, (_, i) => start - i);
    return this.byHashes(await Promise.all(heights.map((height) => this.driver.getBlockHash(height))));
  }

  /**
   * Esplora's block status. A block off the best chain is `{in_best_chain: false}` when the lab knows
   * it: bitcoind answers for it, btcd keeps its header until it restarts, and the adapter remembers
   * the blocks of the best chain that a reorg replaced. A block nobody knows is a 404.
   */
  async status(hash: string): Promise<BlockStatus> {
    const summary = await this.driver.getBlockSummary(hash).catch((error: unknown) => {
      if (error instanceof ChainRpcError) return undefined;
      throw error;
    });
    if (!summary) {
      if ((await this.nodeHasHeader(hash)) || (await this.seen.wasReplaced(hash))) return { in_best_chain: false };
      throw notFound(`block ${hash} is not known to the node, nor one the lab has seen replaced`);
    }
    if ((await this.driver.getBlockHash(summary.height)) !== hash) return { in_best_chain: false };
    const next = await this.driver.getBlockHash(summary.height + 1).catch((error: unknown) => {
      if (error instanceof ChainRpcError) return undefined;
      throw error;
    });
    return { in_best_chain: true, height: summary.height, ...(next ? { next_best: next } : {}) };
  }

  private async nodeHasHeader(hash: string): Promise<boolean> {
    try {
      await this.driver.getBlockHeaderHex(hash);
      return true;
    } catch (error) {
      if (error instanceof ChainRpcError) return false;
      throw error;
    }
  }

  /** A block's height and txids (in block order). */
  summary(hash: string): Promise<{ height: number; txids: string[] }> {
    return this.known(`block ${hash}`, () => this.driver.getBlockSummary(hash));
  }
}

/** mempool.space's extras of a block: reward, fees (the coinbase minus the subsidy) and their averages. */
export function blockExtras(blockHex: string, height: number): BlockExtras {
  const block = Block.fromHex(blockHex);
  const [coinbase, ...others] = block.transactions ?? [];
  const reward = coinbase ? coinbase.outs.reduce((sum, output) => sum + Number(output.value), 0) : 0;
  const subsidy = Math.floor((50 * 1e8) / 2 ** Math.floor(height / REGTEST_HALVING_INTERVAL));
  const totalFees = Math.max(0, reward - subsidy);
  const vsize = others.reduce((sum, tx) => sum + tx.virtualSize(), 0);
  return {
    reward,
    totalFees,
    avgFee: others.length > 0 ? Math.round(totalFees / others.length) : 0,
    avgFeeRate: vsize > 0 ? Math.round(totalFees / vsize) : 0,
  };
}
