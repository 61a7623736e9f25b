// What a repeated step or a parallel group reports: how many runs, how many succeeded, the
// errors by message, and latency percentiles (nearest rank, over every run).

export interface RunOutcome {
  ok: boolean;
  ms: number;
  error?: string;
}

export interface RunStatistics {
  count: number;
  succeeded: number;
  failed: number;
  /** Distinct error messages, most frequent first. */
  errors: { message: string; count: number }[];
  latency_ms: { min: number; mean: number; p50: number; p90: number; p95: number; p99: number; max: number };
}

export function summarise(outcomes: RunOutcome[]): RunStatistics {
  const sorted = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  const errors = new Map<string, number>();
  for (const outcome of outcomes)
    if (!outcome.ok) errors.set(outcome.error ?? 'failed', (errors.get(outcome.error ?? 'failed') ?? 0) + 1);
  const succeeded = outcomes.filter((outcome) => outcome.ok).length;
  return {
    count: outcomes.length,
    succeeded,
    failed: outcomes.length - succeeded,
    errors: [...errors].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count),
    latency_ms: {
      min: sorted[0] ?? 0,
      mean: sorted.length === 0 ? 0 : Math.round(sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length),
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p95: percentile(sorted, 95),
      p99: percentile(sorted, 99),
      max: sorted.at(-1) ?? 0,
    },
  };
}

/** Nearest-rank percentile of ascending values: the smallest value with p % of values at or below it. */
export function percentile(ascending: number[], p: number): number {
  if (ascending.length === 0) return 0;
  return ascending[Math.max(0, Math.ceil((p / 100) * ascending.length) - 1)];
}

/** Runs `count` tasks, at most `concurrency` at a time, and answers their outcomes in task order. */
export async function runPool<T>(
  count: number,
  concurrency: number,
  task: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, concurrency) }, worker));
  return results;
}
