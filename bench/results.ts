// Where the benches keep what they measured: bench/results/BENCH.json, one file per bench, each run appended with
// when it ran, the commit it measured, the machine and its load, the bench's options and its figures. The figures
// quoted in docs/benchmarks.md are the latest run of each file; the earlier runs stay for comparison.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../lib/project-root.js';

export interface BenchMachine {
  cores?: number;
  memoryGiB?: number;
  node?: string;
  /** The 1-minute load average at the run's start and at its end (for older runs, the range noted). */
  loadAverage?: number[];
  /** Which machine, for runs recorded by hand on machines other than the project's usual one. */
  description?: string;
}

export interface BenchRun {
  /** When the run started: an ISO 8601 time in UTC (a date alone for some runs recorded by hand). */
  at: string;
  /** The commit the run measured; null when not known (not a git checkout, or a run recorded by hand). */
  commit: string | null;
  /** Set when the worktree had changes not committed (bench/results aside): the run measured more than `commit`. */
  uncommitted?: true;
  machine: BenchMachine;
  /** The bench's options and environment settings (runtime, runs, lab file, seconds per figure, ...). */
  options: Record<string, unknown>;
  /**
   * What the bench measured, in units named by each key's suffix (S seconds, Ms milliseconds, MiB, Pct of one
   * core, PerS per second). In runs recorded by hand, a key ending in Range holds [least, most] where only the
   * spread of the figures was noted.
   */
  figures: Record<string, unknown>;
  /** What set the run apart (another machine, the code it was compared against); runs recorded by hand. */
  note?: string;
}

export interface BenchResults {
  bench: string;
  runs: BenchRun[];
}

/** bench/results, or BENCH_RESULTS_DIR for a trial run kept out of the record. */
export const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(projectRoot(), 'bench', 'results');

/** The commit checked out in the project folder, and whether code beside it was changed; null outside git. */
function checkout(): { commit: string | null; uncommitted: boolean } {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: projectRoot(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const changes = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench/results');
    return { commit: git('rev-parse', 'HEAD'), uncommitted: changes !== '' };
  } catch {
    return { commit: null, uncommitted: false };
  }
}

/** JSON with two-space indents, arrays of plain values kept on one line so a run's figures read at a glance. */
export function formatResults(results: BenchResults): string {
  const text = JSON.stringify(results, null, 2);
  return `${text.replace(/\[\n\s+([^[\]{}]*?)\n\s+\]/g, (_, inner: string) => `[${inner.split(/,\n\s+/).join(', ')}]`)}\n`;
}

function readResults(file: string, bench: string): BenchResults {
  if (!existsSync(file)) return { bench, runs: [] };
  let parsed: BenchResults;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  } catch (error) {
    throw new Error(
      `${file} is not valid JSON (${(error as Error).message}): fix or move it, then run the bench again`,
    );
  }
  if (parsed.bench !== bench || !Array.isArray(parsed.runs))
    throw new Error(`${file} does not hold the runs of bench ${bench} ({"bench": "${bench}", "runs": [...]})`);
  return parsed;
}

export interface RecordContext {
  options?: Record<string, unknown>;
  /** When the run started (the time of recording otherwise). */
  startedAt?: Date;
  /** The 1-minute load average when the run started. */
  loadAtStart?: number;
  /** The folder of the results files (bench/results). */
  dir?: string;
}

/** Appends one run of `bench` with `figures` to DIR/BENCH.json (made if missing); returns the file's path. */
export function recordResult(bench: string, figures: Record<string, unknown>, context: RecordContext = {}): string {
  const dir = context.dir ?? RESULTS_DIR;
  const file = join(dir, `${bench}.json`);
  const results = readResults(file, bench);
  const { commit, uncommitted } = checkout();
  const loadNow = Number(loadavg()[0]!.toFixed(2));
  results.runs.push({
    at: (context.startedAt ?? new Date()).toISOString(),
    commit,
    ...(uncommitted ? { uncommitted: true as const } : {}),
    machine: {
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      loadAverage: context.loadAtStart === undefined ? [loadNow] : [context.loadAtStart, loadNow],
    },
    options: context.options ?? {},
    figures,
  });
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.tmp`, formatResults(results));
  renameSync(`${file}.tmp`, file);
  console.log(`recorded in ${file}`);
  return file;
}

/** Notes when and under what load a bench starts; `record` then appends its figures (recordResult). */
export function benchRun(bench: string, options: Record<string, unknown> = {}) {
  const startedAt = new Date();
  const loadAtStart = Number(loadavg()[0]!.toFixed(2));
  return {
    record: (figures: Record<string, unknown>, dir?: string) =>
      recordResult(bench, figures, { options, startedAt, loadAtStart, dir }),
  };
}

/** Figures rounded for the record: milliseconds and seconds to what the benches print. */
export const round = (value: number, digits = 1): number => Number(value.toFixed(digits));
