// Durations in scenario files: a number of seconds (`30`, `0.5`) or a number with a unit
// (`500ms`, `30s`, `2m`).

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000 };

/** Milliseconds, or undefined when the value is not a duration. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return value > 0 ? Math.round(value * 1_000) : undefined;
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value) : null;
  return match ? Math.round(Number(match[1]) * UNITS_MS[match[2]]) : undefined;
}

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
