// GET /api/block/:hash/status on a staged chain: a block a reorg replaced is {"in_best_chain": false}
// (Esplora's answer for a block it knows), whether the node still has it or has forgotten it (btcd
// restarted gets back the lab's best chain only); a block nobody knows is a 404.
import type { Block } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { ChainRpcError, type ChainDriver } from '../../lib/chain/types.js';
import { DomainError } from '../../lib/errors.js';
import { waitFor } from '../../lib/wait.js';
import { ChainBlocks } from '../../services/chain-adapter/src/esplora/chain-blocks.js';
import { SeenBlocks } from '../../services/chain-adapter/src/esplora/seen-blocks.js';
import type { Indexer } from '../../services/chain-adapter/src/indexer.js';
import { FakeChain, p2wpkhScript } from '../indexer/fake-chain.js';

const unsupported = () => Promise.reject(new Error('not part of the fake'));

/** The indexer, following `chain` up to `lag` blocks behind its tip. */
function indexerOf(chain: FakeChain, lag = { blocks: 0 }): Indexer {
  const headers = (start: number, count: number) =>
    chain.blocks
      .slice(start, Math.min(start + count, chain.blocks.length - lag.blocks))
      .map((block) => block.toHex(true))
      .join('');
  return {
    tipHeight: async () => chain.blocks.length - 1 - lag.blocks,
    blockHeadersHex: async (start, count) => headers(start, count),
    blockHeaderHex: async (height) => headers(height, 1),
    history: unsupported,
    listUnspent: unsupported,
    transactionHex: unsupported,
    merkleProof: unsupported,
    close: () => undefined,
  };
}

/** A node that knows the blocks of its best chain, and (until it restarts) the headers of every block it was given. */
function nodeOf(chain: FakeChain) {
  const given = new Map<string, Block>();
  const notFound = (method: string) => new ChainRpcError(method, -5, 'Block not found');
  const heightOf = (hash: string) => chain.blocks.findIndex((block) => block.getId() === hash);
  const driver: Partial<ChainDriver> = {
    getBlockHash: async (height) => {
      const block = chain.blocks[height];
      if (!block) throw new ChainRpcError('getblockhash', -8, 'Block number out of range');
      return block.getId();
    },
    getBlockSummary: async (hash) => {
      const height = heightOf(hash);
      // btcd's getblock (verbose) needs the block's height in the best chain
      if (height < 0) throw notFound('getblock');
      const block = chain.blocks[height]!;
      return { hash, height, time: block.timestamp, txids: block.transactions!.map((tx) => tx.getId()) };
    },
    getBlockHeaderHex: async (hash) => {
      const block = chain.blocks[heightOf(hash)] ?? given.get(hash);
      if (!block) throw notFound('getblockheader');
      return block.toHex(true);
    },
  };
  return {
    driver: driver as ChainDriver,
    /** The node is given the blocks of the chain as it is now. */
    accept: () => {
      for (const block of chain.blocks) given.set(block.getId(), block);
    },
    restart: () => given.clear(),
  };
}

const statusOrError = (blocks: ChainBlocks, hash: string) =>
  blocks.status(hash).catch((error: unknown) => {
    if (error instanceof DomainError) return `${error.kind}: ${error.message}`;
    throw error;
  });

describe('block status', () => {
  it('is in the best chain with its height and the next block, the tip without a next one', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 3; i++) chain.mineTo(p2wpkhScript(i));
    const indexer = indexerOf(chain);
    const blocks = new ChainBlocks(nodeOf(chain).driver, indexer, new SeenBlocks(indexer));
    expect(await blocks.status(chain.blocks[1]!.getId())).toEqual({
      in_best_chain: true,
      height: 1,
      next_best: chain.blocks[2]!.getId(),
    });
    expect(await blocks.status(chain.blocks[3]!.getId())).toEqual({ in_best_chain: true, height: 3 });
  });

  it('is not in the best chain for a block a reorg replaced, once the node has forgotten it too; unknown blocks are 404', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 4; i++) chain.mineTo(p2wpkhScript(i));
    const indexer = indexerOf(chain);
    const node = nodeOf(chain);
    const seen = new SeenBlocks(indexer);
    const blocks = new ChainBlocks(node.driver, indexer, seen);
    await seen.catchUp();
    const replaced = [chain.blocks[3]!.getId(), chain.blocks[4]!.getId()];
    node.accept();

    // two blocks replaced by three on top of height 2; the node restarts with the new best chain only
    chain.mineTo(p2wpkhScript(10), [], 2);
    chain.mineTo(p2wpkhScript(11));
    chain.mineTo(p2wpkhScript(12));
    node.restart();

    for (const hash of replaced) expect(await blocks.status(hash)).toEqual({ in_best_chain: false });
    expect(await blocks.status(chain.blocks[3]!.getId())).toMatchObject({ in_best_chain: true, height: 3 });
    expect(await statusOrError(blocks, 'ab'.repeat(32))).toMatch(/^not_found: block abab.* is not known to the node/);
  });

  it('is not in the best chain for a replaced block the node still has, even one the adapter never saw', async () => {
    const chain = new FakeChain();
    chain.mineTo(p2wpkhScript(1));
    const indexer = indexerOf(chain);
    const node = nodeOf(chain);
    const blocks = new ChainBlocks(node.driver, indexer, new SeenBlocks(indexer));
    const replaced = chain.mineTo(p2wpkhScript(2)).getId();
    node.accept();
    chain.mineTo(p2wpkhScript(3), [], 1);
    chain.mineTo(p2wpkhScript(4));
    expect(await blocks.status(replaced)).toEqual({ in_best_chain: false });
  });

  it('does not take blocks above a lagging indexer for replaced ones', async () => {
    const chain = new FakeChain();
    for (let i = 0; i < 5; i++) chain.mineTo(p2wpkhScript(i));
    const lag = { blocks: 0 };
    const indexer = indexerOf(chain, lag);
    const node = nodeOf(chain);
    const seen = new SeenBlocks(indexer);
    await seen.catchUp();
    // the indexer restarts and is 3 blocks behind for a while
    lag.blocks = 3;
    await seen.catchUp();
    lag.blocks = 0;
    expect(await seen.wasReplaced(chain.blocks[5]!.getId())).toBe(false);
    node.restart();
    expect(await statusOrError(new ChainBlocks(node.driver, indexer, seen), 'cd'.repeat(32))).toMatch(/^not_found/);
  });

  it('remembers the blocks its follower saw, without being asked, once started', async () => {
    const chain = new FakeChain();
    const seenByFollower = chain.mineTo(p2wpkhScript(1)).getId();
    let asked = 0;
    const base = indexerOf(chain);
    const indexer = { ...base, tipHeight: () => (asked++, base.tipHeight()) };
    const seen = new SeenBlocks(indexer);
    seen.start(10);
    try {
      await waitFor(async () => asked >= 2, { timeoutMs: 10_000, intervalMs: 10, what: 'the follower to look twice' });
    } finally {
      seen.stop();
    }
    chain.mineTo(p2wpkhScript(2), [], 0);
    chain.mineTo(p2wpkhScript(3));
    expect(await seen.wasReplaced(seenByFollower)).toBe(true);
    // one that was never seen before the reorg is not remembered
    const unseen = new SeenBlocks(indexerOf(chain));
    expect(await unseen.wasReplaced(seenByFollower)).toBe(false);
  });
});
