import { FALLBACK_FEE_SAT_PER_VB, type ChainDriver } from '../../../lib/chain/types.js';

/** mempool.space's fee recommendation, in sat/vB (integers). */
export interface FeeRecommendation {
  fastestFee: number;
  halfHourFee: number;
  hourFee: number;
  economyFee: number;
  minimumFee: number;
}

/** Confirmation targets (blocks) behind each field: 1 block, 3 blocks (~30 min), 6 blocks (~1 h), 144 blocks (~1 day). */
export const RECOMMENDATION_TARGETS = { fastestFee: 1, halfHourFee: 3, hourFee: 6, economyFee: 144 } as const;

/** btcd's and bitcoind's default minimum relay fee, 0.00001 BTC/kvB. */
export const MINIMUM_RELAY_FEE_SAT_PER_VB = 1;

/** The targets Esplora's /fee-estimates answers for. */
export const ESPLORA_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];

/**
 * Fee rates from the node. A target the node cannot estimate (btcd before it has seen enough
 * transactions; any regtest node most of the time) gets the spec's fallback, 0.0002 BTC/kvB =
 * 20 sat/vB. Rates are cached briefly: wallets ask often, and the node's answer changes per block.
 */
export class FeeEstimator {
  private cache?: { at: number; rates: Promise<Map<number, number>> };

  constructor(
    private readonly driver: ChainDriver,
    private readonly cacheMs = 5_000,
  ) {}

  private rates(): Promise<Map<number, number>> {
    const now = Date.now();
    if (!this.cache || now - this.cache.at > this.cacheMs) {
      const rates = Promise.all(
        ESPLORA_TARGETS.map(async (target) => [target, (await this.driver.estimateFeeRate(target).catch(() => undefined)) ?? FALLBACK_FEE_SAT_PER_VB] as const),
      ).then((entries) => new Map(entries));
      this.cache = { at: now, rates };
    }
    return this.cache.rates;
  }

  /** Each field is at least the next slower one, so a wallet never pays more to wait longer. */
  async recommended(): Promise<FeeRecommendation> {
    const rates = await this.rates();
    const minimumFee = MINIMUM_RELAY_FEE_SAT_PER_VB;
    const economyFee = Math.max(minimumFee, rates.get(RECOMMENDATION_TARGETS.economyFee)!);
    const hourFee = Math.max(economyFee, rates.get(RECOMMENDATION_TARGETS.hourFee)!);
    const halfHourFee = Math.max(hourFee, rates.get(RECOMMENDATION_TARGETS.halfHourFee)!);
    const fastestFee = Math.max(halfHourFee, rates.get(RECOMMENDATION_TARGETS.fastestFee)!);
    return { fastestFee, halfHourFee, hourFee, economyFee, minimumFee };
  }

  /** Esplora's GET /fee-estimates: `{ "1": sat/vB, ..., "1008": sat/vB }`. */
  async estimates(): Promise<Record<string, number>> {
    return Object.fromEntries([...(await this.rates())].map(([target, rate]) => [String(target), rate]));
  }
}
