// The lab's chain, kept in the lab's folder as it is made. btcd deletes a regtest chain whenever it
// starts (its removeRegressionDB), so a chain node restarted after a crash, `reglab restart chain`
// or `stop` + `start` would come back at height 0 under nodes, an indexer and wallets that are
// ahead of it. The journal follows the node's best chain (blocks appended as they are mined,
// replaced ones cut off after a reorg) and gives a restarted node its blocks back before it counts
// as ready. Reading btcd's own files back is no way out: they are deleted at start, before the RPC
// answers, and an ffldb written by a killed process would need btcd's own recovery to be read.
//
// The file holds one record per block from height 1: its length (4 bytes, little endian), then
// the raw block. It holds exactly the node's best chain, nothing replaced and nothing twice, so it
// grows as the chain does: a block with only its coinbase is about 250 bytes (a block every 30 s
// for a day: 0.7 MiB), the blocks of a bring-up about 100 KiB.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';

interface Entry {
  /** The block's hash as the node shows it. */
  hash: string;
  /** Where its record starts in the file. */
  offset: number;
}

/** Blocks fetched, or submitted, in one batch of RPC calls. */
const BATCH = 200;
const LENGTH_BYTES = 4;
const HEADER_BYTES = 80;

const hashOf = (block: Buffer) => {
  const once = createHash('sha256').update(block.subarray(0, HEADER_BYTES)).digest();
  return createHash('sha256').update(once).digest().reverse().toString('hex');
};
const previousHashOf = (block: Buffer) => Buffer.from(block.subarray(4, 36)).reverse().toString('hex');

function record(block: Buffer): Buffer {
  const length = Buffer.alloc(LENGTH_BYTES);
  length.writeUInt32LE(block.length);
  return Buffer.concat([length, block]);
}

export class ChainJournal {
  /** The records read so far (index 0: height 1), with the file's size when they were. */
  private loaded?: { entries: Entry[]; size: number };
  /** One change at a time: following, replacing and replaying never interleave. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: string) {}

  /**
   * Brings the journal to the node's best chain: new blocks appended, blocks a reorg replaced cut
   * off. A node behind the journal is left alone: it was restarted and has not been given its
   * blocks back yet (the lab never shortens its chain: a reorg replaces blocks by more blocks).
   */
  follow(chain: RpcChainDriver): Promise<void> {
    return this.serially(async () => {
      const { entries } = await this.load();
      const best = await chain.getBestBlockHash();
      if (best === entries.at(-1)?.hash) return;
      const height = await chain.getBlockCount();
      if (height <= entries.length) return;
      let common = entries.length;
      while (common > 0 && (await chain.getBlockHash(common)) !== entries[common - 1]!.hash) common--;
      await this.cutAfter(common);
      await this.append(chain, common + 1, height);
    });
  }

  /**
   * Submits to the node, in order, the blocks the journal holds beyond its height (all of them to a
   * node that has just started), then checks the node's chain is the journal's.
   */
  replay(chain: RpcChainDriver): Promise<void> {
    return this.serially(async () => {
      const { entries } = await this.load();
      if (entries.length === 0) return;
      const height = await chain.getBlockCount();
      if (height < entries.length) {
        const blocks = this.blocksIn(await readFile(this.file), entries.slice(height));
        for (let from = 0; from < blocks.length; from += BATCH) {
          const answers = await chain.submitBlocks(blocks.slice(from, from + BATCH));
          const refused = answers.findIndex((answer) => answer !== null && answer !== 'duplicate');
          if (refused >= 0)
            throw new Error(
              `the chain node refused block ${height + from + refused + 1} of the lab's chain: ${answers[refused]}`,
            );
        }
      }
      const tip = entries.at(-1)!;
      const hash = await chain.getBlockHash(entries.length);
      if (hash !== tip.hash)
        throw new Error(
          `the chain node's block ${entries.length} is ${hash}, not the lab's ${tip.hash}: its chain is not the lab's`,
        );
    });
  }

  /** Makes `blocks` (raw hex, from height 1) the journal's chain: what a lab restored from a snapshot starts from. */
  replace(blocks: string[]): Promise<void> {
    return this.serially(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      await writeFile(this.file, Buffer.concat(blocks.map((hex) => record(Buffer.from(hex, 'hex')))), { mode: 0o600 });
      this.loaded = undefined;
    });
  }

  /** The height and hash of the journal's last block; nothing for an empty journal. */
  tip(): Promise<{ height: number; hash: string } | undefined> {
    return this.serially(async () => {
      const { entries } = await this.load();
      return entries.length === 0 ? undefined : { height: entries.length, hash: entries.at(-1)!.hash };
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The records, read again when the file changed under this instance (another session of the lab
   * wrote it). A record cut short (the control plane stopped while writing it), or one that does
   * not build on the one before, ends the journal there.
   */
  private async load(): Promise<{ entries: Entry[]; size: number }> {
    const size = existsSync(this.file) ? (await stat(this.file)).size : 0;
    if (this.loaded?.size === size) return this.loaded;
    const bytes = size > 0 ? await readFile(this.file) : Buffer.alloc(0);
    const entries: Entry[] = [];
    let offset = 0;
    while (offset + LENGTH_BYTES <= bytes.length) {
      const end = offset + LENGTH_BYTES + bytes.readUInt32LE(offset);
      if (end > bytes.length) break;
      const block = bytes.subarray(offset + LENGTH_BYTES, end);
      if (entries.length > 0 && previousHashOf(block) !== entries.at(-1)!.hash) break;
      entries.push({ hash: hashOf(block), offset });
      offset = end;
    }
    if (offset < bytes.length) await truncate(this.file, offset);
    this.loaded = { entries, size: offset };
    return this.loaded;
  }

  private blocksIn(bytes: Buffer, entries: Entry[]): string[] {
    return entries.map(({ offset }) =>
      bytes.subarray(offset + LENGTH_BYTES, offset + LENGTH_BYTES + bytes.readUInt32LE(offset)).toString('hex'),
    );
  }

  /** Drops the records above `height`. */
  private async cutAfter(height: number): Promise<void> {
    const loaded = this.loaded!;
    if (height === loaded.entries.length) return;
    const size = loaded.entries[height]!.offset;
    await truncate(this.file, size);
    this.loaded = { entries: loaded.entries.slice(0, height), size };
  }

  /**
   * Appends the node's blocks `from`..`to`, in batches. It stops at a block that does not build on
   * the journal's tip (the node switched chains meanwhile): the next follow goes on from there.
   */
  private async append(chain: RpcChainDriver, from: number, to: number): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true });
    const loaded = this.loaded!;
    for (let start = from; start <= to; start += BATCH) {
      const heights = Array.from({ length: Math.min(BATCH, to - start + 1) }, (_, index) => start + index);
      const records: Buffer[] = [];
      let chained = true;
      for (const { hex } of await chain.getBlocksAtHeights(heights)) {
        const block = Buffer.from(hex, 'hex');
        const tip = loaded.entries.at(-1);
        if (tip && previousHashOf(block) !== tip.hash) {
          chained = false;
          break;
        }
        loaded.entries.push({ hash: hashOf(block), offset: loaded.size });
        records.push(record(block));
        loaded.size += LENGTH_BYTES + block.length;
      }
      await appendFile(this.file, Buffer.concat(records), { mode: 0o600 });
      if (!chained) return;
    }
  }
}
