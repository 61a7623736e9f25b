import { buildRegtestBlock } from '../../../lib/chain/block-builder.js';
import { invalid } from '../../../lib/errors.js';
import type { LabSession } from './session.js';

/** Regtest's proof-of-work limit: every block of the lab carries it. */
const REGTEST_BITS = '207fffff';
const REGTEST_HALVING_INTERVAL = 150;
const INITIAL_SUBSIDY_SAT = 5_000_000_000;

export interface ReorgResult {
  forkHeight: number;
  replaced: number;
  newHeight: number;
}

/**
 * Replaces the last `blocks` blocks with `blocks + 1` new ones built on the block before them (empty
 * but for their coinbase to the lab wallet): the node switches to the longer chain, as a real reorg
 * does, and the replaced blocks' transactions go back to its mempool until a block confirms them.
 */
export async function reorg(session: LabSession, blocks: number): Promise<ReorgResult> {
  const chain = session.chain;
  const tip = await chain.getBlockCount();
  const forkHeight = tip - blocks;
  if (blocks < 1 || forkHeight < 1)
    throw invalid('INVALID_REORG', `a reorg replaces 1 to ${tip - 1} blocks at height ${tip}, not ${blocks}`);
  let previous = await chain.getBlockSummary(await chain.getBlockHash(forkHeight));
  for (let height = forkHeight + 1; height <= tip + 1; height++) {
    const block = buildRegtestBlock(
      {
        version: 0x20000000,
        previousblockhash: previous.hash,
        transactions: [],
        coinbasevalue: Math.floor(INITIAL_SUBSIDY_SAT / 2 ** Math.floor(height / REGTEST_HALVING_INTERVAL)),
        bits: REGTEST_BITS,
        curtime: previous.time + 1,
        height,
      },
      session.labWallet.address,
    );
    const rejection = await chain.call<string | null>('submitblock', [block.toHex()]);
    if (rejection) throw new Error(`the node refused replacement block ${height}: ${rejection}`);
    previous = { hash: block.getId(), height, time: previous.time + 1, txids: [] };
  }
  const newHeight = await chain.getBlockCount();
  if ((await chain.getBestBlockHash()) !== previous.hash)
    throw new Error(`the node did not switch to the new chain (its tip is at ${newHeight})`);
  await session.recordChain();
  return { forkHeight, replaced: blocks, newHeight };
}
