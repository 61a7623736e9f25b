import { describe, expect, it } from 'vitest';
import { FEE_TARGETS, FeeCurve } from '../../lib/chain/fee-curve.js';
import type { ChainDriver } from '../../lib/chain/types.js';
import { FeeEstimator } from '../../services/chain-adapter/src/fees.js';

/** Only estimateFeeRate is used for fees; the rest of the driver is never called. */
function driverEstimating(
  rates: Record<number, number | undefined>,
  calls: number[] = [],
): Pick<ChainDriver, 'estimateFeeRate'> {
  return {
    estimateFeeRate: async (target: number) => {
      calls.push(target);
      return rates[target];
    },
  };
}

const nonIncreasing = (values: number[]) => values.every((value, i) => i === 0 || value <= values[i - 1]!);

describe('FeeEstimator', () => {
  it('falls back to 20 sat/vB (0.0002 BTC/kvB) up to 25 blocks only when the node estimates nothing; slower targets get the relay minimum', async () => {
    const fees = new FeeEstimator(driverEstimating({}));
    expect(await fees.recommended()).toEqual({
      fastestFee: 20,
      halfHourFee: 20,
      hourFee: 20,
      economyFee: 1,
      minimumFee: 1,
    });
    const estimates = await fees.estimates();
    expect(FEE_TARGETS.filter((target) => target <= 25).map((target) => estimates[String(target)])).toEqual(
      Array(25).fill(20),
    );
    expect(estimates).toMatchObject({ 144: 1, 504: 1, 1008: 1 });
  });

  it('does not push the fallback into targets the node estimates (node 6/2/2, nothing for 144 and beyond)', async () => {
    const short = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [i + 1, i === 0 ? 6 : 2]));
    const fees = new FeeEstimator(driverEstimating(short));
    expect(await fees.recommended()).toEqual({
      fastestFee: 6,
      halfHourFee: 2,
      hourFee: 2,
      economyFee: 1,
      minimumFee: 1,
    });
    const estimates = await fees.estimates();
    expect(estimates).toMatchObject({ 1: 6, 2: 2, 25: 2, 144: 1, 1008: 1 });
    expect(nonIncreasing(FEE_TARGETS.map((target) => estimates[String(target)]!))).toBe(true);
  });

  it('never lets a slower target cost more: a gap takes the faster estimate, a leading gap the slower one', async () => {
    const fees = new FeeEstimator(driverEstimating({ 1: 40, 3: 12, 6: 15, 144: 3 }));
    expect(await fees.recommended()).toEqual({
      fastestFee: 40,
      halfHourFee: 12,
      hourFee: 12,
      economyFee: 3,
      minimumFee: 1,
    });
    expect(await fees.estimates()).toMatchObject({ 1: 40, 2: 40, 3: 12, 6: 12, 25: 12, 144: 3, 504: 3, 1008: 3 });
    const leadingGap = new FeeEstimator(driverEstimating({ 3: 12 }));
    expect(await leadingGap.estimates()).toMatchObject({ 1: 12, 2: 12, 3: 12, 25: 12, 144: 1 });
  });

  it('keeps what the node estimates for slow targets (bitcoind estimates up to 1008 blocks)', async () => {
    const fees = new FeeEstimator(driverEstimating({ 1: 9, 144: 4, 1008: 2 }));
    expect(await fees.estimates()).toMatchObject({ 1: 9, 25: 9, 144: 4, 504: 4, 1008: 2 });
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

describe('FeeCurve.rateFor (Electrum blockchain.estimatefee)', () => {
  it('answers any target from the curve target at or below it', async () => {
    const curve = new FeeCurve(driverEstimating({ 1: 30, 2: 10, 144: 4 }));
    expect(await curve.rateFor(0)).toBe(30);
    expect(await curve.rateFor(1)).toBe(30);
    expect(await curve.rateFor(2)).toBe(10);
    expect(await curve.rateFor(100)).toBe(10);
    expect(await curve.rateFor(144)).toBe(4);
    expect(await curve.rateFor(5000)).toBe(4);
  });
});
