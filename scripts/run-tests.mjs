#!/usr/bin/env node
// `npm test` after the build and Biome: the type check (tsc, tsconfig.test.json: the sources and the
// tests) beside the unit tests, then (if both passed) the integration tests, each run through vitest
// with its usual output, then the slowest test files of all runs with their times, hooks included
// (where the time goes: scripts/test-file-times.mjs), then one plain closing line over all runs,
// `tests: N passed, N failed[, N skipped]`, which CI systems and people read without vitest's colours.
// The integration tests run in lanes at the same time, since most of their time is spent waiting on
// btcd, lnd and the lab: the pool, POOL_WORKERS files at once, and the lanes of LANES, each a part of
// the machine its files share, one file after another. The pool's output is printed as it comes; a
// lane's is kept in a file and printed in one piece when the lane ends. Each file's time is kept for
// the next run, whose files start longest first (test/support/longest-first-sequencer.ts).
// Exit code: 0 only if every run passed.
import { spawn } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

/** Integration files the pool runs at once, each with labs, processes and ports of its own or a shared lab. */
const POOL_WORKERS = 3;

/**
 * Integration files that share one part of the machine, by lane: a lane runs its files one after
 * another, beside the pool and the other lanes (once those it comes `after` are done). The pool's files
 * each have labs, processes and ports of their own, or a shared lab lent to one file at a time
 * (test/support/shared-lab.ts). A file goes to the first lane that takes it.
 */
const LANES = [
  {
    name: 'browser',
    // Chromium drops a page's requests when the machine's network changes (net::ERR_NETWORK_CHANGED),
    // as the two lanes below change it, adding and removing their containers' and pods' interfaces
    after: ['container engine', 'cluster'],
    takes: (file) => /support\/chromium\.js'/.test(readFileSync(file, 'utf8')),
  },
  {
    name: 'container engine',
    // the machine's one container engine (Podman's Docker API), whose containers and volumes are
    // named after their lab, and which engine-outage cuts off
    takes: within('test/docker/', 'test/indexer/stop-without-dns.test.ts'),
  },
  {
    name: 'cluster',
    // the one test cluster, which changes the host's routes and network namespaces
    takes: within('test/kubernetes/'),
  },
];

/** Whether a file is one of `entries`, or in one of those that end in / (folders). */
function within(...entries) {
  return (file) => entries.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));
}

/** The integration project's files (vitest.config.ts). */
const integrationFiles = readdirSync('test', { recursive: true })
  .map((file) => join('test', file))
  .filter((file) => file.endsWith('.test.ts') && !file.endsWith('.unit.test.ts'))
  .sort();
const laneOf = (file) => LANES.find((lane) => lane.takes(file));
for (const lane of LANES)
  if (!integrationFiles.some((file) => laneOf(file) === lane))
    throw new Error(`the ${lane.name} lane takes no integration test file: moved or renamed?`);

// an integration run names its files (vitest matches each file whose path contains one)
const integrationRuns = [
  {
    name: 'integration',
    lane: 'pool',
    after: [],
    args: [`--maxWorkers=${POOL_WORKERS}`, ...integrationFiles.filter((file) => !laneOf(file))],
    live: true,
  },
  ...LANES.map((lane) => ({
    name: `integration, ${lane.name} lane`,
    lane: lane.name,
    after: lane.after ?? [],
    args: ['--maxWorkers=1', ...integrationFiles.filter((file) => laneOf(file) === lane)],
    live: false,
  })),
];

/** Each test file's time in the last run, by path (ms): the machine's record, which this run updates. */
const FILE_TIMES = join(process.env.REGLAB_CACHE_DIR ?? join(homedir(), '.cache', 'reglab'), 'test-file-times.json');

const reports = mkdtempSync(join(tmpdir(), 'reglab-test-report-'));
const total = { passed: 0, failed: 0, skipped: 0 };
/** Every test file run, with its run's name and how long it took. */
const files = [];
const SLOWEST_SHOWN = 10;
let exitCode = 0;
let reportCount = 0;

/** A vitest run's command line and environment, and where its counts and its files' times will be. */
const vitestRun = (args) => {
  const at = join(reports, String(reportCount++));
  const report = `${at}.json`;
  const times = `${at}.times`;
  return {
    report,
    times,
    args: [
      'vitest',
      'run',
      ...args,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
      '--reporter=./scripts/test-file-times.mjs',
    ],
    env: { ...process.env, REGLAB_TEST_FILE_TIMES: FILE_TIMES, REGLAB_TEST_FILE_TIMES_OUT: times },
  };
};

/** Adds a run's counts and times to the totals; a run that failed counts as a failure even without a report. */
function record(name, { report, times }, status) {
  const counts = readCounts(report);
  if (counts) {
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
  }
  files.push(...readTimes(times, name));
  if (status !== 0) {
    exitCode = status ?? 1;
    // vitest crashed, or a set-up failed
    if (!counts || counts.failed === 0) total.failed += 1;
  }
}

// the unit test files share their workers' processes (--no-isolate): a process each cost more than
// the tests themselves, and they leave no state behind (a file that sets the environment restores it)
const unit = vitestRun(['--project', 'unit', '--maxWorkers=2', '--no-isolate']);
// the type check and the unit tests need nothing of each other, and the integration tests wait for
// both: they run at once, tsc's output (its errors only) printed once both are done
const typeCheck = spawn('npx', ['tsc', '-p', 'tsconfig.test.json'], { stdio: ['ignore', 'pipe', 'pipe'] });
let typeErrors = '';
for (const stream of [typeCheck.stdout, typeCheck.stderr]) stream.on('data', (chunk) => (typeErrors += chunk));
const [typeCheckStatus, unitStatus] = await Promise.all([
  exitCodeOf(typeCheck),
  exitCodeOf(spawn('npx', unit.args, { stdio: 'inherit', env: unit.env })),
]);
record('unit', unit, unitStatus);
if (typeCheckStatus !== 0) {
  console.log(`\ntype check (tsc -p tsconfig.test.json) failed:\n${typeErrors}`);
  exitCode = typeCheckStatus;
  total.failed += 1;
}
// the integration tests wait for passing unit tests and type check
if (unitStatus === 0 && typeCheckStatus === 0) await Promise.all(integrationRuns.map(started));
rmSync(reports, { recursive: true, force: true });
keepFileTimes();

if (files.length > 0) {
  const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
  console.log(`\nslowest ${slowest.length} test files:`);
  for (const file of slowest) console.log(`${(file.ms / 1000).toFixed(1).padStart(8)} s  ${file.name} (${file.run})`);
}
const skipped = total.skipped > 0 ? `, ${total.skipped} skipped` : '';
console.log(`\ntests: ${total.passed} passed, ${total.failed} failed${skipped}`);
process.exit(exitCode);

/** A child process's exit code once it has ended (1 when a signal ended it). */
function exitCodeOf(child) {
  return new Promise((resolve) => child.on('close', (code) => resolve(code ?? 1)));
}

/** An integration run, started once the lanes it comes after are done (one start however often asked). */
function started(run) {
  if (!run.done) {
    const before = run.after.map((lane) => started(integrationRuns.find((other) => other.lane === lane)));
    run.done = Promise.all(before).then(() => runIntegration(run));
  }
  return run.done;
}

/**
 * One integration run, beside the others: a live one's output goes to this process's line by line, a
 * lane's to a file, printed whole once the run ends; lines and lanes' outputs never cut into each other.
 */
function runIntegration({ name, args, live }) {
  const run = vitestRun(['--project', 'integration', ...args]);
  const output = join(reports, `${name.replace(/\W+/g, '-')}.log`);
  const log = live ? undefined : createWriteStream(output);
  // its output is not a terminal, but ours may be: keep vitest's colours then
  const env = process.stdout.isTTY ? { ...run.env, FORCE_COLOR: '1' } : run.env;
  const child = spawn('npx', run.args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  for (const [stream, print] of [
    [child.stdout, console.log],
    [child.stderr, console.error],
  ]) {
    if (log) stream.pipe(log, { end: false });
    else createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => print(line));
  }
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const done = () => {
        if (log) {
          process.stdout.write(`\n──── ${name}: its output ────\n${readFileSync(output, 'utf8')}`);
          process.stdout.write(`──── ${name}: end (${signal ?? `exit code ${code}`}) ────\n\n`);
        }
        record(name, run, code ?? 1);
        resolve();
      };
      if (log) log.end(done);
      else done();
    });
  });
}

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

/** The times scripts/test-file-times.mjs wrote of a run's files. */
function readTimes(file, run) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map(({ file: name, ms }) => ({ name, run, ms }));
}

/** This run's times over the last record's (which keeps files this run did not run), written whole or not at all. */
function keepFileTimes() {
  let kept = {};
  try {
    kept = JSON.parse(readFileSync(FILE_TIMES, 'utf8'));
  } catch {
    // none yet, or unreadable: this run's times start it again
  }
  for (const { name, ms } of files) kept[name] = ms;
  mkdirSync(dirname(FILE_TIMES), { recursive: true });
  const partial = `${FILE_TIMES}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(kept, null, 1)}\n`);
  renameSync(partial, FILE_TIMES);
}
