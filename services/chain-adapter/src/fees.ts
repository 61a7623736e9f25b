import { FeeCurve } from '../../../lib/chain/fee-curve.js';
import type { FeePolicy } from '../../../lib/chain/fee-policy.js';
import { lndFeeEstimates, type LndFeeEstimates } from '../../../lib/chain/lnd-fee-estimates.js';
import { MINIMUM_RELAY_FEE_SAT_PER_VB, type ChainDriver } from '../../../lib/chain/types.js';

/** mempool.space's fee recommendation, in sat/vB (integers). */
export interface FeeRecommendation {
  fastestFee: number;
  halfHourFee: number;
  hourFee: number;
  economyFee: number;
  minimumFee: number;
}

/**
 * Confirmation targets (blocks) behind each field: 1 block, 3 blocks (~30 min), 6 blocks (~1 h), 144 blocks (~1 day).
 */
export const RECOMMENDATION_TARGETS = { fastestFee: 1, halfHourFee: 3, hourFee: 6, economyFee: 144 } as const;

/** The adapter's fee answers, by the lab's fee policy (lib/chain/fee-curve.ts: a fixed rate, or the
 * node's curve: the fallback only where the node estimates nothing, the relay minimum for slow
 * targets it does not estimate, never rising with the target). */
export class FeeEstimator {
  private readonly curve: FeeCurve;

  constructor(
    driver: Pick<ChainDriver, 'estimateFeeRate' | 'getBlockCount'>,
    policy: FeePolicy = { policy: 'node' },
    cacheMs = 5_000,
  ) {
    this.curve = new FeeCurve(driver, policy, cacheMs);
  }

  /** fastest >= halfHour >= hour >= economy >= minimum, each at least the relay minimum. */
  async recommended(): Promise<FeeRecommendation> {
    const rates = await this.curve.rates();
    const atLeastMinimum = (target: number) => Math.max(MINIMUM_RELAY_FEE_SAT_PER_VB, rates.get(target)!);
    return {
      fastestFee: atLeastMinimum(RECOMMENDATION_TARGETS.fastestFee),
      halfHourFee: atLeastMinimum(RECOMMENDATION_TARGETS.halfHourFee),
      hourFee: atLeastMinimum(RECOMMENDATION_TARGETS.hourFee),
      economyFee: atLeastMinimum(RECOMMENDATION_TARGETS.economyFee),
      minimumFee: MINIMUM_RELAY_FEE_SAT_PER_VB,
    };
  }

  /** Esplora's GET /fee-estimates: `{ "1": sat/vB, ..., "1008": sat/vB }`. */
  async estimates(): Promise<Record<string, number>> {
    return Object.fromEntries([...(await this.curve.rates())].map(([target, rate]) => [String(target), rate]));
  }

  /** The same rates in the format of lnd's fee service (lnd's --fee.url in a docker lab). */
  async lnd(): Promise<LndFeeEstimates> {
    return lndFeeEstimates(await this.curve.rates());
  }
}
