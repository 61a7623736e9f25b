import { FeeCurve } from '../../../lib/chain/fee-curve.js';
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

/** The adapter's fee answers, from the node's fee curve (lib/chain/fee-curve.ts: the fallback only
 * where the node estimates nothing, the relay minimum for slow targets it does not estimate, never
 * rising with the target). */
export class FeeEstimator {
  private readonly curve: FeeCurve;

  constructor(driver: Pick<ChainDriver, 'estimateFeeRate'>, cacheMs = 5_000) {
    this.curve = new FeeCurve(driver, cacheMs);
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
}
