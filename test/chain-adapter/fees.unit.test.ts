import { describe, expect, it } from 'vitest';
import { FEE_TARGETS, FeeCurve } from '../../lib/chain/fee-curve.js';
import { lndFeeEstimates } from '../../lib/chain/lnd-fee-estimates.js';
import { ChainRpcError, type ChainDriver } from '../../lib/chain/types.js';
import { FeeEstimator } from '../../services/chain-adapter/src/fees.js';

type FeeDriver = Pick<ChainDriver, 'estimateFeeRate' | 'getBlockCount'>;

/** Only estimateFeeRate and getBlockCount are used for fees; the rest of the driver is never called. */
function driverEstimating(rates: Record<number, number | undefined>, calls: number[] = []): FeeDriver {
  return {
    estimateFeeRate: async (target: number) => {
      calls.push(target);
      return rates[target];
    },
    getBlockCount: async () => 500,
  };
}

/** A node that cannot be reached, as node:http reports it; `down.value = false` brings it back. */
function nodeThatMayBeDown(rates: Record<number, number | undefined>) {
  const down = { value: true };
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:18334'), { code: 'ECONNREFUSED' });
  const driver: FeeDriver = {
    estimateFeeRate: async (target) => {
      if (down.value) throw refused();
      return rates[target];
    },
    getBlockCount: async () => {
      if (down.value) throw refused();
      return 500;
    },
  };
  return { driver, down };
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
    const fees = new FeeEstimator(driverEstimating({ 1: 5 }, calls), { policy: 'node' }, 60_000);
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

describe('the fixed fee policy', () => {
  it('answers its rate at every target and on every path, whatever the node estimates, with the relay minimum as minimum', async () => {
    const fees = new FeeEstimator(driverEstimating({ 1: 25, 144: 3 }), { policy: 'fixed', satPerVbyte: 7 });
    expect(await fees.recommended()).toEqual({
      fastestFee: 7,
      halfHourFee: 7,
      hourFee: 7,
      economyFee: 7,
      minimumFee: 1,
    });
    expect(Object.values(await fees.estimates())).toEqual(FEE_TARGETS.map(() => 7));
    const curve = new FeeCurve(driverEstimating({ 1: 25 }), { policy: 'fixed', satPerVbyte: 7 });
    expect(await curve.rateFor(0)).toBe(7);
    expect(await curve.rateFor(5000)).toBe(7);
  });

  it('gives lnd the same rates in its fee-service format (sat per 1000 vB) and the relay minimum', async () => {
    const fees = new FeeEstimator(driverEstimating({}), { policy: 'fixed', satPerVbyte: 7 });
    const lnd = await fees.lnd();
    expect(lnd.min_relay_feerate).toBe(1000);
    expect(Object.keys(lnd.fee_by_block_target)).toEqual(FEE_TARGETS.map(String));
    expect(new Set(Object.values(lnd.fee_by_block_target))).toEqual(new Set([7000]));
    expect(
      lndFeeEstimates(
        new Map([
          [1, 30],
          [144, 2],
        ]),
      ),
    ).toEqual({
      fee_by_block_target: { 1: 30_000, 144: 2_000 },
      min_relay_feerate: 1000,
    });
  });
});

describe('fees while the node cannot be reached', () => {
  for (const policy of [{ policy: 'node' as const }, { policy: 'fixed' as const, satPerVbyte: 3 }]) {
    it(`answers no rate under the ${policy.policy} policy (no made-up figure), and the node's again once it is back`, async () => {
      const { driver, down } = nodeThatMayBeDown({ 1: 4 });
      const fees = new FeeEstimator(driver, policy, 60_000);
      await expect(fees.recommended()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(fees.estimates()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(fees.lnd()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      down.value = false;
      // the failure was not kept for the cache time
      expect((await fees.recommended()).fastestFee).toBe(policy.policy === 'node' ? 4 : 3);
    });
  }

  it('takes a node that answers with an RPC error as having no estimate for that target', async () => {
    const driver: FeeDriver = {
      estimateFeeRate: async (target) => {
        if (target > 25) throw new ChainRpcError('estimatefee', -1, 'Parameter NumBlocks must be less than 25');
        return 6;
      },
      getBlockCount: async () => 500,
    };
    expect(await new FeeEstimator(driver).estimates()).toMatchObject({ 1: 6, 25: 6, 144: 1, 1008: 1 });
  });
});
