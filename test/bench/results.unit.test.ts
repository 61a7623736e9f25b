// The benches' record (bench/results.ts): each run appended to its bench's file with its time, the commit it
// measured, the machine and its figures, earlier runs kept; a file that is not a bench's record is left alone.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../lib/project-root.js';
import { type BenchResults, benchRun, formatResults, recordResult } from '../../bench/results.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (bench: string) => JSON.parse(readFileSync(join(dir, `${bench}.json`), 'utf8')) as BenchResults;

/** The commit the project folder has checked out, as git says it; null outside a git checkout. */
function headCommit(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot(), encoding: 'utf8', stdio: 'pipe' }).trim();
  } catch {
    return null;
  }
}

describe('recordResult', () => {
  it('starts a bench file with one run: its time, the commit, the machine, the options and the figures', () => {
    const before = Date.now();
    const file = recordResult('lab-up', { readyS: [7.8, 7.6] }, { options: { runtime: 'process' }, dir });
    expect(file).toBe(join(dir, 'lab-up.json'));
    const { bench, runs } = read('lab-up');
    expect(bench).toBe('lab-up');
    expect(runs).toHaveLength(1);
    const [run] = runs;
    expect(Date.parse(run!.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(run!.commit).toBe(headCommit());
    expect(run!.machine.cores).toBeGreaterThan(0);
    expect(run!.machine.node).toBe(process.version);
    expect(run!.options).toEqual({ runtime: 'process' });
    expect(run!.figures).toEqual({ readyS: [7.8, 7.6] });
    expect(readFileSync(file, 'utf8'), 'a list of figures on one line').toContain('"readyS": [7.8, 7.6]');
  });

  it('appends each later run and keeps the earlier ones as they were', () => {
    recordResult('memory', { allRssMiB: 734 }, { dir });
    const first = read('memory').runs[0];
    benchRun('memory', { runs: 2 }).record({ allRssMiB: 735 }, dir);
    const { runs } = read('memory');
    expect(runs).toHaveLength(2);
    expect(runs[0]).toEqual(first);
    expect(runs[1]!.figures).toEqual({ allRssMiB: 735 });
    expect(runs[1]!.options).toEqual({ runs: 2 });
    expect(runs[1]!.machine.loadAverage).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(['memory.json']);
  });

  it('refuses a file that is not valid JSON, naming it, and leaves it untouched', () => {
    writeFileSync(join(dir, 'rgb.json'), '{"bench": "rgb", "runs": [');
    expect(() => recordResult('rgb', { totalMs: 274 }, { dir })).toThrow(/rgb\.json is not valid JSON/);
    expect(readFileSync(join(dir, 'rgb.json'), 'utf8')).toBe('{"bench": "rgb", "runs": [');
  });

  it("refuses another bench's file", () => {
    writeFileSync(join(dir, 'chain.json'), JSON.stringify({ bench: 'wallet', runs: [] }));
    expect(() => recordResult('chain', {}, { dir })).toThrow(/does not hold the runs of bench chain/);
  });
});

describe('the results files in bench/results', () => {
  const RESULTS_DIR = join(projectRoot(), 'bench', 'results');
  it('are each the record of the bench they are named after, every run with its time, machine and figures', () => {
    const files = readdirSync(RESULTS_DIR).filter((name) => name.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) {
      const text = readFileSync(join(RESULTS_DIR, name), 'utf8');
      const results = JSON.parse(text) as BenchResults;
      expect(results.bench, name).toBe(name.replace(/\.json$/, ''));
      expect(results.runs.length, name).toBeGreaterThan(0);
      for (const run of results.runs) {
        expect(Number.isNaN(Date.parse(run.at)), `${name}: ${run.at}`).toBe(false);
        expect(Object.keys(run.figures).length, `${name}: ${run.at}`).toBeGreaterThan(0);
        expect(run.machine, `${name}: ${run.at}`).toBeTypeOf('object');
      }
      expect(text, `${name} as recordResult writes it`).toBe(formatResults(results));
    }
  });
});
