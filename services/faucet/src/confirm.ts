import type { ChainDriver } from '../../../lib/chain/types.js';
import { upstreamFailed } from '../../../lib/errors.js';
import type { MinedBlock, Miner } from './miner.js';

const MAX_MINE_ATTEMPTS = 3;

/**
 * Mines one block and returns the block that holds `txid`. With claims in flight together, the
 * block another claim mined may already hold this claim's transaction (it was in the mempool when
 * that block was built), so this claim's own block can be empty of it: the blocks back to the
 * height at sending time are searched. Only if none holds it (the node left it out of its block
 * template) is another block mined, 3 blocks at most.
 */
async function mineUntilConfirmed(
  miner: Miner,
  driver: ChainDriver,
  txid: string,
  heightAtSend: number,
): Promise<MinedBlock> {
  for (let attempt = 1; ; attempt++) {
    const mined = await miner.mineOne();
    for (let hash: string | undefined = mined.hash; hash; ) {
      const block = await driver.getBlockSummary(hash);
      if (block.height <= heightAtSend) break;
      if (block.txids.includes(txid)) return { hash: block.hash, height: block.height };
      hash = block.previousBlockHash;
    }
    if (attempt === MAX_MINE_ATTEMPTS) throw new Error(`${attempt} blocks were mined and none holds the transaction`);
  }
}

/**
 * Confirms what a claim sent: the block holding `txid`, or 502 MINE_FAILED naming the txid (what was
 * sent is gone, so the claim's cool-down stays: the transaction confirms with the next block).
 */
export async function confirmClaim(
  miner: Miner,
  driver: ChainDriver,
  txid: string,
  heightAtSend: number,
): Promise<MinedBlock> {
  try {
    return await mineUntilConfirmed(miner, driver, txid, heightAtSend);
  } catch (error) {
    const failure = upstreamFailed(
      'MINE_FAILED',
      `sent ${txid} but could not mine a block (${(error as Error).message}); the transaction waits in the mempool and confirms with the next block`,
      error,
    );
    failure.details.txid = txid;
    throw failure;
  }
}
