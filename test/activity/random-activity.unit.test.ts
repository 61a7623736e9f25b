// The random activity's decisions: replayed by a seed, weighted by channel capacity, amounts
// around the expected amount, the pace sim-ln's capacity multiplier asks for.
import { describe, expect, it } from 'vitest';
import { RandomActivity, WINDOW_SECONDS, type ActivityNode } from '../../control-plane/src/activity/random-activity.js';

const LAB: ActivityNode[] = [
  { name: 'alice', capacitySat: 5_000_000 },
  { name: 'bob', capacitySat: 10_000_000 },
  { name: 'carol', capacitySat: 5_000_000 },
];
const SETTINGS = { seed: 42, expectedAmountSat: 3_800, capacityMultiplier: 2 };

const decisions = (nodes: ActivityNode[], settings: typeof SETTINGS, count: number) => {
  const random = new RandomActivity(nodes, settings);
  return Array.from({ length: count }, () => random.next());
};

describe('random activity', () => {
  it('replays the same (from, to, amount, delay) sequence for the same seed and lab, listed in any order', () => {
    const first = decisions(LAB, SETTINGS, 200);
    expect(decisions([...LAB].reverse(), SETTINGS, 200)).toEqual(first);
    expect(first.map((decision) => decision.seq)).toEqual(Array.from({ length: 200 }, (_, index) => index + 1));
  });

  it('sends another sequence for another seed', () => {
    const other = decisions(LAB, { ...SETTINGS, seed: 43 }, 50).map(({ from, to, amountSat }) => [from, to, amountSat]);
    expect(other).not.toEqual(decisions(LAB, SETTINGS, 50).map(({ from, to, amountSat }) => [from, to, amountSat]));
  });

  it('never pays a node itself, and picks sources and destinations by channel capacity', () => {
    const many = decisions(LAB, SETTINGS, 20_000);
    expect(many.every((decision) => decision.from !== decision.to)).toBe(true);
    const share = (name: string, end: 'from' | 'to') =>
      many.filter((decision) => decision[end] === name).length / many.length;
    // bob holds half the capacity: half the payments come from him
    expect(share('bob', 'from')).toBeGreaterThan(0.47);
    expect(share('bob', 'from')).toBeLessThan(0.53);
    // alice's destination is bob 2 times in 3 (10M of the 15M of the others)
    const fromAlice = many.filter((decision) => decision.from === 'alice');
    const toBob = fromAlice.filter((decision) => decision.to === 'bob').length / fromAlice.length;
    expect(toBob).toBeGreaterThan(0.63);
    expect(toBob).toBeLessThan(0.7);
  });

  it('spreads amounts around the expected amount and paces payments by capacity × multiplier per window', () => {
    const many = decisions(LAB, SETTINGS, 20_000);
    const meanAmount = many.reduce((sum, decision) => sum + decision.amountSat, 0) / many.length;
    expect(meanAmount).toBeGreaterThan(3_800 * 0.95);
    expect(meanAmount).toBeLessThan(3_800 * 1.05);
    expect(new Set(many.map((decision) => decision.amountSat)).size).toBeGreaterThan(1000);
    const rate = (20_000_000 * 2) / 3_800 / WINDOW_SECONDS;
    const meanDelayMs = many.reduce((sum, decision) => sum + decision.delayMs, 0) / many.length;
    expect(meanDelayMs).toBeGreaterThan((1000 / rate) * 0.95);
    expect(meanDelayMs).toBeLessThan((1000 / rate) * 1.05);
  });

  it('keeps amounts within half the smaller capacity of the two ends', () => {
    const small = [
      { name: 'a', capacitySat: 20_000 },
      { name: 'b', capacitySat: 20_000 },
    ];
    const many = decisions(small, { ...SETTINGS, expectedAmountSat: 9_000 }, 2_000);
    expect(Math.max(...many.map((decision) => decision.amountSat))).toBe(10_000);
    expect(Math.min(...many.map((decision) => decision.amountSat))).toBeGreaterThanOrEqual(1);
  });

  it('needs two nodes with channels', () => {
    expect(
      () =>
        new RandomActivity(
          [
            { name: 'alice', capacitySat: 5 },
            { name: 'bob', capacitySat: 0 },
          ],
          SETTINGS,
        ),
    ).toThrow('random activity needs two Lightning nodes with channels (found alice)');
  });
});
