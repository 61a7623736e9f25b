// A fee spike in the lab's fee policy: carried to a service in its environment, and applied to the
// rates while the chain is below its end.
import { describe, expect, it } from 'vitest';
import { FeeCurve } from '../../lib/chain/fee-curve.js';
import { feePolicyFromEnv, feePolicyToEnv, spiked } from '../../lib/chain/fee-policy.js';

describe('fee spikes', () => {
  it('travels to a service in its environment with the policy', () => {
    const policy = { policy: 'fixed' as const, satPerVbyte: 2, spike: { satPerVbyte: 50, untilHeight: 500 } };
    expect(feePolicyToEnv(policy)).toEqual({
      FEE_POLICY: 'fixed',
      FEE_SAT_PER_VBYTE: '2',
      FEE_SPIKE_SAT_PER_VBYTE: '50',
      FEE_SPIKE_UNTIL_HEIGHT: '500',
    });
    expect(feePolicyFromEnv(feePolicyToEnv(policy))).toEqual(policy);
    expect(feePolicyFromEnv({ FEE_POLICY: 'node' })).toEqual({ policy: 'node' });
    expect(() => feePolicyFromEnv({ FEE_POLICY: 'node', FEE_SPIKE_SAT_PER_VBYTE: 'x' })).toThrow(
      'FEE_SPIKE_SAT_PER_VBYTE must be a whole number of sat/vB, at least 1, not "x"',
    );
  });

  it('raises every rate below the spike while the chain is below its end, and no more at its end', () => {
    const rates = new Map([
      [1, 80],
      [6, 20],
      [144, 1],
    ]);
    const spike = { satPerVbyte: 50, untilHeight: 10 };
    expect([...spiked(rates, spike, 9)]).toEqual([
      [1, 80],
      [6, 50],
      [144, 50],
    ]);
    expect(spiked(rates, spike, 10)).toBe(rates);
    expect(spiked(rates, undefined, 0)).toBe(rates);
  });

  it('is what a fee curve answers, until the chain reaches its end', async () => {
    const ratesAt = async (height: number) => {
      const driver = { estimateFeeRate: async () => 3, getBlockCount: async () => height };
      const curve = new FeeCurve(driver, { policy: 'node', spike: { satPerVbyte: 40, untilHeight: 103 } });
      return new Set((await curve.rates()).values());
    };
    expect(await ratesAt(102)).toEqual(new Set([40]));
    expect(await ratesAt(103)).toEqual(new Set([3]));
  });
});
