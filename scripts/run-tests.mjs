#!/usr/bin/env node
// `npm test` after the type checks: the unit tests, then (if they passed) the integration tests, each
// run through vitest with its usual output, then the slowest test files of all runs with their times
// (where the time goes), then one plain closing line over all runs,
// `tests: N passed, N failed[, N skipped]`, which CI systems and people read without vitest's colours.
// Integration files run two at a time, since much of their time is spent waiting on btcd, lnd and
// the lab, except those of SERIAL_FILES, which run afterwards, one after another, alone.
// Exit code: 0 only if every run passed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/**
 * Integration files (a folder's when the entry ends in /) that must not run beside another file, by
 * reason. The others each have labs, processes and ports of their own, or a shared lab lent to one
 * file at a time (test/support/shared-lab.ts).
 */
const SERIAL_FILES = [
  // the machine's one container engine (Podman's Docker API), whose containers and volumes are named
  // after their lab, and which engine-outage cuts off
  'test/docker/',
  'test/control-plane/snapshots.test.ts',
  'test/indexer/stop-without-dns.test.ts',
  // the one test cluster, which changes the host's routes and network namespaces
  'test/kubernetes/',
  // cargo's kept target folder, which it builds in
  'test/lab/ldk-build.test.ts',
  // a few seconds are part of what they check (a tip three seconds old, a frozen node's client
  // time-out, lnd giving up on its chain, a kill in the middle of a payment, a restart attempt's
  // time-out): a second file's load could move them past those seconds
  'test/control-plane/chain-tip.test.ts',
  'test/control-plane/chain-outage.test.ts',
  'test/control-plane/frozen-status.test.ts',
  'test/control-plane/restart-timeout.test.ts',
  'test/control-plane/supervision.test.ts',
  'test/wallet-server/node-outage.test.ts',
  // schemathesis: each run has a time budget, not a number of requests, and fails an answer slower
  // than its limit; a second file's load would cut the one and break the other
  'test/conformance/',
];

/** The integration project's files (vitest.config.ts), those of SERIAL_FILES, and the others. */
const integrationFiles = readdirSync('test', { recursive: true })
  .map((file) => join('test', file))
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.unit.test.ts'))
  .sort();
const isSerial = (file) =>
  SERIAL_FILES.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));
for (const entry of SERIAL_FILES)
  if (!integrationFiles.some((file) => isSerial(file) && file.startsWith(entry)))
    throw new Error(`SERIAL_FILES names ${entry}, which holds no integration test file: moved or renamed?`);

// an integration run names its files (vitest matches each file whose path contains one)
const runs = [
  { name: 'unit', args: ['--project', 'unit', '--maxWorkers=2'] },
  {
    name: 'integration',
    args: ['--project', 'integration', '--maxWorkers=2', ...integrationFiles.filter((file) => !isSerial(file))],
  },
  { name: 'integration, alone', args: ['--project', 'integration', ...integrationFiles.filter(isSerial)] },
];
const reports = mkdtempSync(join(tmpdir(), 'reglab-test-report-'));
const total = { passed: 0, failed: 0, skipped: 0 };
/** Every test file run, with its run's name and how long it took. */
const files = [];
const SLOWEST_SHOWN = 10;
let exitCode = 0;

for (const [index, { name, args }] of runs.entries()) {
  const report = join(reports, `${index}.json`);
  const run = spawnSync(
    'npx',
    ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    { stdio: 'inherit' },
  );
  const counts = readCounts(report, name);
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
    // the integration tests wait for passing unit tests; each integration run is worth reading
    if (name === 'unit') break;
  }
}
rmSync(reports, { recursive: true, force: true });

if (files.length > 0) {
  const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
  console.log(`\nslowest ${slowest.length} test files:`);
  for (const file of slowest) console.log(`${(file.ms / 1000).toFixed(1).padStart(8)} s  ${file.name} (${file.run})`);
}
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${skipped}`);
process.exit(exitCode);

function readCounts(file, run) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: report.numPendingTests + report.numTodoTests,
      files: report.testResults.map((result) => ({
        name: relative(process.cwd(), result.name),
        run,
        ms: result.endTime - result.startTime,
      })),
    };
  } catch {
    return undefined;
  }
}
