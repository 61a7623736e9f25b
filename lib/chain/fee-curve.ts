// Fee rates by confirmation target, as the lab's parts answer them (the chain adapter's Esplora and
// mempool fee routes, the indexer's Electrum blockchain.estimatefee, lnd's fee URL): one rule, so a
// wallet and a node see the same figures whichever they ask.
import { spiked, type FeePolicy } from './fee-policy.js';
import { ChainRpcError, FALLBACK_FEE_SAT_PER_VB, MINIMUM_RELAY_FEE_SAT_PER_VB, type ChainDriver } from './types.js';

/** The targets (blocks) Esplora's /fee-estimates answers for; the curve is built on these. */
export const FEE_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

/** A day's wait and more: targets btcd never estimates (it stops at 25 blocks). */
const SLOW_TARGET = 144;

/**
 * A rate for every target from the node's estimates (sat/vB, undefined where it has none):
 * - a slow target (144 blocks and more) the node cannot estimate takes the rate of the nearest
 *   faster slow target it can estimate, else the relay minimum (btcd estimates none of them). On
 *   regtest any fee confirms in the next block, and Lightning nodes read these targets as the lowest
 *   fee they let a peer set: LDK refused lnd's channels and closing fees below its 144- and
 *   1008-block answers (20 sat/vB from a fresh lab), while lnd asks btcd, which says 1 sat/vB once
 *   it has seen a few blocks of transactions;
 * - another target the node cannot estimate takes the rate of the nearest faster target it can
 *   estimate (that rate also confirms within the longer wait), else of the nearest slower one;
 * - the rate never rises as the target grows (a wallet never pays more to wait longer);
 * - only when the node estimates none of the faster targets do they get the spec's fallback.
 */
export function feeCurve(estimates: ReadonlyMap<number, number | undefined>): Map<number, number> {
  const targets = [...estimates.keys()].sort((a, b) => a - b);
  const known = targets.filter((target) => estimates.get(target) !== undefined);
  const curve = new Map<number, number>();
  let previous = Number.POSITIVE_INFINITY;
  for (const target of targets) {
    const rate = Math.min(
      previous,
      target >= SLOW_TARGET ? slowRate(estimates, known, target) : fastRate(estimates, known, target),
    );
    curve.set(target, rate);
    previous = rate;
  }
  return curve;
}

function fastRate(estimates: ReadonlyMap<number, number | undefined>, known: number[], target: number): number {
  const source = [...known].reverse().find((t) => t <= target) ?? known.find((t) => t > target);
  return source === undefined ? FALLBACK_FEE_SAT_PER_VB : estimates.get(source)!;
}

function slowRate(estimates: ReadonlyMap<number, number | undefined>, known: number[], target: number): number {
  const source = [...known].reverse().find((t) => t <= target && t >= SLOW_TARGET);
  return source === undefined ? MINIMUM_RELAY_FEE_SAT_PER_VB : estimates.get(source)!;
}

/**
 * The lab's rates over FEE_TARGETS by its fee policy: the fixed rate at every target, or the node's
 * fee curve. Asked again at most every `cacheMs` (wallets ask often, the node's answer changes per
 * block). A node that does not answer makes every policy fail: a wallet told a fee while the chain is
 * down could not broadcast anyway, and a made-up figure would hide the outage.
 */
export class FeeCurve {
  private cache?: { at: number; curve: Promise<Map<number, number>> };

  constructor(
    private readonly driver: Pick<ChainDriver, 'estimateFeeRate' | 'getBlockCount'>,
    private readonly policy: FeePolicy = { policy: 'node' },
    private readonly cacheMs = 5_000,
  ) {}

  rates(): Promise<Map<number, number>> {
    const now = Date.now();
    if (!this.cache || now - this.cache.at > this.cacheMs) {
      const curve = this.fetch();
      this.cache = { at: now, curve };
      // a failure is not kept: the next call asks the node again
      curve.catch(() => {
        if (this.cache?.curve === curve) this.cache = undefined;
      });
    }
    return this.cache.curve;
  }

  /** The rate for any target: that of the largest curve target not above it (target 0 counts as 1). */
  async rateFor(target: number): Promise<number> {
    const rates = await this.rates();
    const at = [...FEE_TARGETS].reverse().find((t) => t <= Math.max(1, target))!;
    return rates.get(at)!;
  }

  private async fetch(): Promise<Map<number, number>> {
    const policy = this.policy;
    const height = await this.driver.getBlockCount();
    if (policy.policy === 'fixed')
      return spiked(new Map(FEE_TARGETS.map((target) => [target, policy.satPerVbyte])), policy.spike, height);
    const estimates = await Promise.all(
      FEE_TARGETS.map(async (target) => [target, await this.estimate(target)] as const),
    );
    return spiked(feeCurve(new Map(estimates)), policy.spike, height);
  }

  /** The node's estimate, undefined when it answers that it has none; a node that cannot be asked throws. */
  private async estimate(target: number): Promise<number | undefined> {
    try {
      return await this.driver.estimateFeeRate(target);
    } catch (error) {
      if (error instanceof ChainRpcError) return undefined;
      throw error;
    }
  }
}
