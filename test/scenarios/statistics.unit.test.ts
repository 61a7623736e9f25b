import { describe, expect, it } from 'vitest';
import { percentile, runPool, summarise } from '../../scenarios/src/run/statistics.js';

describe('run statistics', () => {
  it('takes nearest-rank percentiles', () => {
    const hundred = Array.from({ length: 100 }, (_, index) => index + 1);
    expect([50, 90, 95, 99, 100].map((p) => percentile(hundred, p))).toEqual([50, 90, 95, 99, 100]);
    expect([50, 99].map((p) => percentile([7, 9, 30], p))).toEqual([9, 30]);
    expect(percentile([], 50)).toBe(0);
  });

  it('counts outcomes and groups errors, most frequent first', () => {
    const stats = summarise([
      { ok: true, ms: 10 },
      { ok: false, ms: 30, error: 'budget' },
      { ok: false, ms: 20, error: 'budget' },
      { ok: false, ms: 40, error: 'k1 used' },
    ]);
    expect(stats).toEqual({
      count: 4,
      succeeded: 1,
      failed: 3,
      errors: [
        { message: 'budget', count: 2 },
        { message: 'k1 used', count: 1 },
      ],
      latency_ms: { min: 10, mean: 25, p50: 20, p90: 40, p95: 40, p99: 40, max: 40 },
    });
  });

  it('runs a pool with at most N at a time, answering in task order', async () => {
    let running = 0;
    let most = 0;
    const results = await runPool(20, 4, async (index) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5 + (index % 3) * 5));
      running--;
      return index * 2;
    });
    expect(results).toEqual(Array.from({ length: 20 }, (_, index) => index * 2));
    expect(most).toBe(4);
  });
});
