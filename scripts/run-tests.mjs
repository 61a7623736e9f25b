#!/usr/bin/env node
// `npm test` after the type checks: the unit project, then (if it passed) the integration project,
// each through vitest with its usual output, then the slowest test files of both runs with their
// times (where the time goes), then one plain closing line over both runs,
// `tests: N passed, N failed[, N skipped]`, which CI systems and people read without vitest's colours.
// Exit code: 0 only if both runs passed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const projects = ['unit', 'integration'];
const reports = mkdtempSync(join(tmpdir(), 'reglab-test-report-'));
const total = { passed: 0, failed: 0, skipped: 0 };
/** Every test file run, with its project and how long it took. */
const files = [];
const SLOWEST_SHOWN = 10;
let exitCode = 0;

for (const project of projects) {
  const report = join(reports, `${project}.json`);
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { stdio: 'inherit' },
  );
  const counts = readCounts(report, project);
  if (counts) {
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
    files.push(...counts.files);
  }
  if (run.status !== 0) {
    exitCode = run.status ?? 1;
    // a run that failed without a report (vitest crashed, a setup failed) still counts as a failure
    if (!counts || counts.failed === 0) total.failed += 1;
    break;
  }
}
rmSync(reports, { recursive: true, force: true });

if (files.length > 0) {
  const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
  console.log(`\nslowest ${slowest.length} test files:`);
  for (const file of slowest)
    console.log(`${(file.ms / 1000).toFixed(1).padStart(8)} s  ${file.name} (${file.project})`);
}
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${skipped}`);
process.exit(exitCode);

function readCounts(file, project) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
      files: report.testResults.map((result) => ({
        name: relative(process.cwd(), result.name),
        project,
        ms: result.endTime - result.startTime,
      })),
    };
  } catch {
    return undefined;
  }
}
