// lnd counts its wallet as not synced while the chain's newest block is more than two hours old:
// it will not finish starting, and its synced_to_chain turns false (lnd issues #3336 and #11004). A
// regtest chain sits idle for hours between tests, and a snapshot comes back with the blocks it was
// taken with, so the lab mines one block whenever its tip is older than mining.max_tip_age_seconds.
import type { LabAccess } from '../nodes/types.js';

/** How old the chain's tip may get before the lab mines a block (mining.max_tip_age_seconds's default). */
export const DEFAULT_MAX_TIP_AGE_SECONDS = 3_600;

/** A new block, mined because the tip was `tipAgeSeconds` old. */
export interface TipFreshened {
  height: number;
  tipAgeSeconds: number;
}

/**
 * Mines one block to the lab wallet when the chain's tip is older than the lab's
 * `mining.max_tip_age_seconds` (never when that is 0, nor on a chain with no block of its own yet:
 * bring-up mines those); what it mined, or nothing.
 */
export async function freshenChainTip(
  access: Pick<LabAccess, 'lab' | 'chain' | 'mine'>,
  nowMs = Date.now(),
): Promise<TipFreshened | undefined> {
  // a lab saved before the setting existed has none
  const maxAgeSeconds = access.lab.spec.mining.max_tip_age_seconds ?? DEFAULT_MAX_TIP_AGE_SECONDS;
  if (maxAgeSeconds === 0) return undefined;
  const tip = await access.chain.getBlockSummary(await access.chain.getBestBlockHash());
  const tipAgeSeconds = Math.floor(nowMs / 1000) - tip.time;
  if (tip.height === 0 || tipAgeSeconds <= maxAgeSeconds) return undefined;
  const { height } = await access.mine(1);
  return { height, tipAgeSeconds };
}
