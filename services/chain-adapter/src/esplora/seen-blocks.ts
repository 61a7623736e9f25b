import type { Indexer } from '../indexer.js';
import { headerInfo } from './convert.js';

/** Headers read from the indexer in one call (its blockchain.block.headers limit). */
const HEADERS_PER_CALL = 2016;
const HEADER_HEX = 160;
/** Replaced blocks kept, the oldest dropped first. */
const MAX_REPLACED = 10_000;

/**
 * The blocks of the best chain the adapter has seen (the indexer's, as its tip moves), and those a
 * reorg has replaced since, so that a block's status says "not in the best chain" for a block the
 * lab knew, as Esplora does. The node cannot always tell: btcd forgets a replaced branch when it
 * restarts (the lab gives it back its best chain only).
 */
export class SeenBlocks {
  /** Hashes of the best chain by height, as last seen. */
  private readonly best: string[] = [];
  private readonly replaced = new Set<string>();
  private updating: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private following = false;

  constructor(private readonly indexer: Indexer) {}

  /** True when the adapter saw this block in the best chain and a reorg has replaced it since. */
  async wasReplaced(hash: string): Promise<boolean> {
    // a pass already under way may have read the indexer before the reorg: then look again
    const underWay = this.updating;
    await this.catchUp();
    if (underWay) await this.catchUp();
    return this.replaced.has(hash);
  }

  /** Brings the record to the indexer's tip (one pass at a time). */
  catchUp(): Promise<void> {
    this.updating ??= this.follow().finally(() => (this.updating = undefined));
    return this.updating;
  }

  /** Follows the indexer every `intervalMs` (its failures wait for the next turn). */
  start(intervalMs: number): void {
    this.following = true;
    const turn = () => {
      if (!this.following) return;
      this.timer = setTimeout(() => void this.catchUp().then(turn, turn), intervalMs);
      this.timer.unref();
    };
    turn();
  }

  stop(): void {
    this.following = false;
    clearTimeout(this.timer);
  }

  private async follow(): Promise<void> {
    const tip = await this.indexer.tipHeight();
    const top = Math.min(tip, this.best.length - 1);
    // Blocks above the indexer's tip are not replaced: it is behind (a restart), not on another branch.
    const common = await this.commonHeight(top);
    if (common < top) for (const hash of this.best.splice(common + 1)) this.remember(hash);
    for (let start = this.best.length; start <= tip; start += HEADERS_PER_CALL)
      this.best.push(...(await this.hashesFrom(start, Math.min(HEADERS_PER_CALL, tip - start + 1))));
  }

  /** The highest height at or below `top` where the record and the indexer have the same block (-1: none). */
  private async commonHeight(top: number): Promise<number> {
    if (top < 0 || (await this.hashesFrom(top, 1))[0] === this.best[top]) return top;
    for (let high = top - 1; high >= 0; high -= HEADERS_PER_CALL) {
      const low = Math.max(0, high - HEADERS_PER_CALL + 1);
      const hashes = await this.hashesFrom(low, high - low + 1);
      for (let height = high; height >= low; height--) if (hashes[height - low] === this.best[height]) return height;
    }
    return -1;
  }

  private async hashesFrom(start: number, count: number): Promise<string[]> {
    const hex = await this.indexer.blockHeadersHex(start, count);
    return Array.from(
      { length: hex.length / HEADER_HEX },
      (_, i) => headerInfo(hex.slice(i * HEADER_HEX, (i + 1) * HEADER_HEX)).hash,
    );
  }

  private remember(hash: string): void {
    this.replaced.add(hash);
    if (this.replaced.size > MAX_REPLACED) this.replaced.delete(this.replaced.values().next().value!);
  }
}
