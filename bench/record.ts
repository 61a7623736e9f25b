// Records a run of a bench written in the shell (bench/first-command.sh) in bench/results, as the TypeScript
// benches do: `tsx bench/record.ts BENCH FIGURES_JSON [OPTIONS_JSON]`, with the start time and load from the
// environment (BENCH_STARTED_AT as an ISO time, BENCH_LOAD_AT_START as the 1-minute load average).
import { recordResult } from './results.js';

const [bench, figures, options] = process.argv.slice(2);
if (!bench || !figures) {
  console.error('usage: tsx bench/record.ts BENCH FIGURES_JSON [OPTIONS_JSON]');
  process.exit(2);
}
const startedAt = process.env.BENCH_STARTED_AT ? new Date(process.env.BENCH_STARTED_AT) : undefined;
const loadAtStart = process.env.BENCH_LOAD_AT_START ? Number(process.env.BENCH_LOAD_AT_START) : undefined;
recordResult(bench, JSON.parse(figures) as Record<string, unknown>, {
  options: options ? (JSON.parse(options) as Record<string, unknown>) : {},
  startedAt,
  loadAtStart,
});
