#!/usr/bin/env node
// `npm test` after the type checks: the unit project, then (if it passed) the integration project,
// each through vitest with its usual output, then one plain closing line over both runs,
// `tests: N passed, N failed[, N skipped]`, which CI systems and people read without vitest's colours.
// Exit code: 0 only if both runs passed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const projects = ['unit', 'integration'];
const reports = mkdtempSync(join(tmpdir(), 'reglab-test-report-'));
const total = { passed: 0, failed: 0, skipped: 0 };
let exitCode = 0;

for (const project of projects) {
  const report = join(reports, `${project}.json`);
  const run = spawnSync(
    'npx',
    ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { stdio: 'inherit' },
  );
  const counts = readCounts(report);
  if (counts) {
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  if (run.status !== 0) {
    exitCode = run.status ?? 1;
    // a run that failed without a report (vitest crashed, a setup failed) still counts as a failure
    if (!counts || counts.failed === 0) total.failed += 1;
    break;
  }
}
rmSync(reports, { recursive: true, force: true });

const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${skipped}`);
process.exit(exitCode);

function readCounts(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
    };
  } catch {
    return undefined;
  }
}
