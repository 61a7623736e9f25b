import { describe, expect, it } from 'vitest';
import type { ChainDriver } from '../../lib/chain/types.js';
import { FeeEstimator } from '../../services/chain-adapter/src/fees.js';

/** Only estimateFeeRate is used by the estimator; the rest of the driver is never called. */
function driverEstimating(rates: Record<number, number | undefined>, calls: number[] = []): ChainDriver {
  return {
    estimateFeeRate: async (target: number) => {
      calls.push(target);
      return rates[target];
    },
  } as unknown as ChainDriver;
}

describe('FeeEstimator', () => {
  it('falls back to 20 sat/vB (0.0002 BTC/kvB) for every target the node cannot estimate', async () => {
    const fees = new FeeEstimator(driverEstimating({}));
    expect(await fees.recommended()).toEqual({ fastestFee: 20, halfHourFee: 20, hourFee: 20, economyFee: 20, minimumFee: 1 });
    const estimates = await fees.estimates();
    expect(Object.keys(estimates)).toContain('1008');
    expect(new Set(Object.values(estimates))).toEqual(new Set([20]));
  });

  it('uses the node estimates for targets 1, 3, 6 and 144 and never lets a faster target cost less', async () => {
    const fees = new FeeEstimator(driverEstimating({ 1: 40, 3: 12, 6: 15, 144: 3 }));
    expect(await fees.recommended()).toEqual({ fastestFee: 40, halfHourFee: 15, hourFee: 15, economyFee: 3, minimumFee: 1 });
  });

  it('asks the node again only after the cache time', async () => {
    const calls: number[] = [];
    const fees = new FeeEstimator(driverEstimating({ 1: 5 }, calls), 60_000);
    await fees.recommended();
    const first = calls.length;
    await fees.recommended();
    expect(calls.length).toBe(first);
  });
});
