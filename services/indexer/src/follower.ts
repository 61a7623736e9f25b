import { EventEmitter } from 'node:events';
import type { ChainDriver } from '../../../lib/chain/types.js';
import { toDisplayHex } from './hashes.js';
import type { Logger } from './log.js';
import type { Mempool } from './mempool.js';
import { parseBlockHex, type ParsedBlock } from './parse.js';
import type { IndexStore } from './store.js';

export interface ChainChange {
  /** True when the indexed tip moved (new blocks, or a reorg). */
  tipChanged: boolean;
  /** Script hashes (internal-order hex) whose history may have changed. */
  scriptHashes: Set<string>;
}

export interface FollowerEvents {
  change: [ChainChange];
}

/** Blocks fetched in one batch of RPC calls: one round trip to the node for many blocks. */
const BATCH_BLOCKS = 100;
/** Batches fetched ahead of the one being applied, so applying never waits on the node. */
const BATCHES_AHEAD = 2;
/**
 * How often the follower asks the node while it hears the node's notices: only for what comes with
 * no notice (a transaction leaving the mempool by expiry or eviction).
 */
export const NOTIFIED_POLL_MS = 5_000;

/** A node's notices of its changes (blocks, mempool transactions), as lib/chain/btcd-notifications.ts gives them. */
export type ChainNotices = (onChange: () => void, onLost: () => void) => { subscribed(): boolean; stop(): void };

/**
 * Follows the node: new blocks, reorgs (unwinding to the fork point) and the mempool. A step runs at
 * each of the node's notices when it gives them, and at every poll: every `pollMs`, or every
 * NOTIFIED_POLL_MS while the notices are heard. Every step runs in one serial loop, so the index is
 * never written by two steps at once.
 */
export class ChainFollower extends EventEmitter<FollowerEvents> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private rerun = false;
  /** The last sync error, so a node that is down is reported once, not at every poll. */
  private failure: string | undefined;
  private watch: ReturnType<ChainNotices> | undefined;

  constructor(
    private readonly driver: ChainDriver,
    private readonly store: IndexStore,
    private readonly mempool: Mempool,
    private readonly log: Logger,
    private readonly pollMs: number,
    private readonly notices?: ChainNotices,
  ) {
    super();
  }

  start(): void {
    this.stopped = false;
    this.watch = this.notices?.(
      () => {
        if (!this.stopped) void this.poke();
      },
      () => {
        if (!this.running) this.schedule(this.pollMs);
      },
    );
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.stop();
    clearTimeout(this.timer);
    await this.running;
  }

  /** Runs a sync step now (or right after the current one), e.g. after a broadcast. */
  poke(): Promise<void> {
    if (this.running) {
      this.rerun = true;
      return this.running;
    }
    return this.step();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.step(), delayMs);
  }

  private step(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      do {
        this.rerun = false;
        try {
          await this.syncOnce();
          if (this.failure !== undefined)
            this.log.info('sync with the node works again', { height: this.store.height });
          this.failure = undefined;
        } catch (error) {
          const message = (error as Error).message;
          if (message !== this.failure)
            this.log.warn('sync with the node failed; retrying at every poll', { error: message });
          this.failure = message;
        }
      } while (this.rerun && !this.stopped);
    })().finally(() => {
      this.running = undefined;
      this.schedule(this.watch?.subscribed() ? NOTIFIED_POLL_MS : this.pollMs);
    });
    return this.running;
  }

  /** One pass: blocks (with reorg handling), then the mempool. */
  private async syncOnce(): Promise<void> {
    const change: ChainChange = { tipChanged: false, scriptHashes: new Set() };
    try {
      await this.syncBlocks(change);
      for (const scriptHash of await this.mempool.sync(this.driver, this.store)) change.scriptHashes.add(scriptHash);
    } finally {
      if (change.tipChanged || change.scriptHashes.size > 0) this.emit('change', change);
    }
  }

  private async syncBlocks(change: ChainChange): Promise<void> {
    for (;;) {
      const best = await this.driver.getBestBlockHash();
      const tip = this.store.hashAt(this.store.height);
      if (tip && toDisplayHex(tip) === best) return;
      if (await this.nodeIsCatchingUp()) return;
      await this.unwindToForkPoint(change);
      const nodeHeight = await this.driver.getBlockCount();
      const complete = await this.applyBlocks(this.store.height + 1, nodeHeight, change);
      if (complete) return;
      // The node switched chains while we were fetching: go round again from the new fork point.
    }
  }

  /**
   * A node whose chain is a shorter part of the index is catching up (a restarted chain node being
   * given its blocks back), not reorganising: a reorg replaces blocks by more work. Unwinding to it
   * would tell every wallet its transactions left the chain, for a moment: wait for it instead.
   */
  private async nodeIsCatchingUp(): Promise<boolean> {
    const nodeHeight = await this.driver.getBlockCount();
    if (nodeHeight >= this.store.height) return false;
    return (await this.driver.getBlockHash(nodeHeight)) === toDisplayHex(this.store.hashAt(nodeHeight)!);
  }

  private async unwindToForkPoint(change: ChainChange): Promise<void> {
    const nodeHeight = await this.driver.getBlockCount();
    while (this.store.height >= 0) {
      const height = this.store.height;
      const hash = toDisplayHex(this.store.hashAt(height)!);
      if (height <= nodeHeight && (await this.driver.getBlockHash(height)) === hash) return;
      const effect = await this.store.unwindTip();
      change.tipChanged = true;
      for (const scriptHash of effect.scriptHashes) change.scriptHashes.add(scriptHash);
      this.log.info('unwound a block that left the best chain', { height, hash });
    }
  }

  /**
   * Applies blocks from..to (stopping early when the follower is stopped); false when a block does
   * not extend the indexed tip (a reorg under way).
   */
  private async applyBlocks(from: number, to: number, change: ChainChange): Promise<boolean> {
    const batches = new Map<number, Promise<ParsedBlock[]>>();
    const fetchBatch = (start: number) => {
      if (start > to || batches.has(start)) return;
      const heights = Array.from({ length: Math.min(BATCH_BLOCKS, to - start + 1) }, (_, i) => start + i);
      const blocks = this.driver
        .getBlocksAtHeights(heights)
        .then((fetched) => fetched.map((b) => parseBlockHex(b.hex)));
      blocks.catch(() => undefined); // awaited in order below; a failure ahead of that must not go unhandled
      batches.set(start, blocks);
    };
    for (let start = from; start <= to && !this.stopped; start += BATCH_BLOCKS) {
      for (let ahead = 0; ahead <= BATCHES_AHEAD; ahead++) fetchBatch(start + ahead * BATCH_BLOCKS);
      const blocks = await batches.get(start)!;
      batches.delete(start);
      for (const [i, block] of blocks.entries()) {
        if (this.stopped) return true;
        const height = start + i;
        const tip = this.store.hashAt(this.store.height);
        if (tip && !tip.equals(block.prevHash)) return false;
        // The genesis coinbase is not spendable; only its header is indexed.
        const effect = await this.store.applyBlock(height === 0 ? { ...block, txs: [] } : block);
        change.tipChanged = true;
        for (const scriptHash of effect.scriptHashes) change.scriptHashes.add(scriptHash);
        this.mempool.removeConfirmed(effect.txids.map(toDisplayHex), change.scriptHashes);
        if (height % 1000 === 0 || height === to)
          this.log.info('indexed block', { height, hash: toDisplayHex(block.hash) });
      }
    }
    return true;
  }
}
