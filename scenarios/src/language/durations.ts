// Durations in scenario files: a number of seconds (`30`, `0.5`) or a number with a unit
// (`500ms`, `30s`, `2m`).

const UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000 };

export const DURATION_PATTERN = '^\\d+(\\.\\d+)?(ms|s|m)$';

/** The schema of a duration field. */
export const durationSchema = {
  anyOf: [{ type: 'number', exclusiveMinimum: 0 }, { type: 'string', pattern: DURATION_PATTERN }],
} as const;

export function durationMs(value: number | string): number {
  if (typeof value === 'number') return Math.round(value * 1_000);
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!match) throw new Error(`"${value}" is not a duration (write 500ms, 30s or 2m)`);
  return Math.round(Number(match[1]) * UNITS_MS[match[2]]);
}

export function formatDuration(ms: number): string {
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}
