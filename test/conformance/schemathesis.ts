// Schemathesis (pinned, from PyPI, in a venv of the lab's cache) against any service's OpenAPI
// document: generated requests, checked for server errors, undocumented status codes, responses off
// their schema, content type or headers, invalid input accepted, undeclared methods not answered 405,
// and the rest of schemathesis's checks but those of EXCLUDED_CHECKS. The control plane's document
// can be checked the same way: pass its URL.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../lib/project-root.js';

const run = promisify(execFile);

/**
 * Schemathesis's checks (all of them, as `st run` runs by default) but three whose premise these APIs
 * do not share, each a decision documented where the API is:
 * - positive_data_acceptance: a schema cannot say that a Bitcoin address, a raw transaction or an
 *   invoice must carry a valid checksum; such input is a 400, as Esplora and lnd answer it;
 * - use_after_free: DELETE /wallets/{id} archives (the ledger keeps its history, which stays
 *   readable: docs/wallet-server.md);
 * - ignored_auth: these runs send the credentials as plain headers, which schemathesis cannot leave
 *   out (that a request without them is a 401 is tested by each service's own tests).
 */
export const EXCLUDED_CHECKS = ['positive_data_acceptance', 'use_after_free', 'ignored_auth'];

/** The `st` executable, installed by scripts/install-schemathesis.sh on first use. */
export async function ensureSchemathesis(): Promise<string> {
  try {
    const { stdout } = await run('bash', [join(projectRoot(), 'scripts', 'install-schemathesis.sh')], {
      timeout: 300_000,
    });
    return stdout.trim().split('\n').at(-1)!;
  } catch (error) {
    throw new Error(
      `this test needs schemathesis from PyPI: bash scripts/install-schemathesis.sh (${(error as Error).message})`,
    );
  }
}

export interface ConformanceRun {
  /** Headers sent with every request, e.g. a bearer token so that protected routes answer more than 401. */
  headers?: Record<string, string>;
  /** Operations not to call, by path (e.g. the control plane's /shutdown). */
  excludePaths?: string[];
  /** Checks left out of this run besides EXCLUDED_CHECKS, each for a reason the caller gives. */
  excludeChecks?: string[];
  /**
   * Test cases per operation in the fuzzing and stateful phases (MAX_EXAMPLES by default): with the
   * seed, a fixed amount of work, the same on a quiet machine as on a busy one. An API of a few
   * operations is given more, for as many cases in all as a larger one.
   */
  maxExamples?: number;
  /**
   * A time budget for the whole run, seconds, instead of a fixed amount of work: fuzzing and stateful
   * testing repeat until it is spent. Only for an API whose answers wait on timers of their own, where
   * a fixed number of cases would take many minutes (the caller says which).
   */
  maxTimeSeconds?: number;
  /**
   * How long one request may take, seconds (REQUEST_TIMEOUT_SECONDS by default), also the response
   * time past which an answer fails (`--max-response-time`).
   */
  requestTimeoutSeconds?: number;
  seed?: number;
}

/** Test cases per operation and phase, by default. */
const MAX_EXAMPLES = 25;
/** Far longer than any of these APIs takes to answer, so that a busy machine cannot fail a run. */
const REQUEST_TIMEOUT_SECONDS = 60;
/** How long a whole run may take before it is ended as hung: minutes more than any takes. */
const RUN_TIMEOUT_MS = 10 * 60_000;

/** Long enough for any run here on a busy machine (vitest's test time-out, for a test that runs schemathesis). */
export const CONFORMANCE_TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 60_000;

export interface ConformanceResult {
  passed: boolean;
  /** Schemathesis's report: the summary of a passing run; each failure with the request that reproduces it. */
  output: string;
}

/** Runs schemathesis's conformance checks against the OpenAPI document at `openapiUrl` (the API is its origin). */
export async function checkConformance(
  st: string,
  openapiUrl: string,
  options: ConformanceRun = {},
): Promise<ConformanceResult> {
  const args = [
    'run',
    openapiUrl,
    '--checks',
    'all',
    '--exclude-checks',
    [...EXCLUDED_CHECKS, ...(options.excludeChecks ?? [])].join(','),
    '--max-examples',
    String(options.maxExamples ?? MAX_EXAMPLES),
    ...(options.maxTimeSeconds ? ['--max-time', String(options.maxTimeSeconds)] : []),
    '--seed',
    String(options.seed ?? 12),
    '--request-timeout',
    String(options.requestTimeoutSeconds ?? REQUEST_TIMEOUT_SECONDS),
    // `--checks all` includes a response time limit, 10 s unless given: on a machine whose speed
    // varies with its load that is a figure (the benches keep those), so the limit is the request's
    // time-out: an answer must come, however slowly
    '--max-response-time',
    String(options.requestTimeoutSeconds ?? REQUEST_TIMEOUT_SECONDS),
    // one worker: on Python 3.11 parallel workers can trip over each other inside schemathesis
    '--workers',
    '1',
    '--no-shrink',
    '--output-truncate',
    'false',
    ...Object.entries(options.headers ?? {}).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
    ...(options.excludePaths ?? []).flatMap((path) => ['--exclude-path', path]),
  ];
  try {
    const { stdout } = await run(st, args, {
      timeout: RUN_TIMEOUT_MS,
      maxBuffer: 32 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' },
    });
    return { passed: true, output: summaryOf(stdout) };
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    return { passed: false, output: failuresOf(`${failed.stdout ?? ''}${failed.stderr ?? ''}`) || failed.message };
  }
}

/** The errors and failures sections of schemathesis's report (each with its reproducing request), bounded. */
function failuresOf(report: string): string {
  const start =
    ['ERRORS', 'FAILURES']
      .map((section) => report.indexOf(`= ${section} =`))
      .filter((at) => at >= 0)
      .sort((a, b) => a - b)[0] ?? -1;
  const failures = start >= 0 ? report.slice(report.lastIndexOf('\n', start) + 1) : report;
  return failures.length > 20_000 ? `${failures.slice(0, 20_000)}\n…` : failures;
}

/**
 * The closing summary of schemathesis's report (operations and test cases, checks, warnings), without
 * its `=== … ===` banners: printed in a test's output, pytest's closing-line format ("=== 2 warnings in
 * 60.00s ===") is read by CI systems as a Python run of no test.
 */
export function summaryOf(report: string): string {
  const start = report.lastIndexOf('SUMMARY');
  const summary =
    start >= 0 ? report.slice(report.lastIndexOf('\n', start) + 1) : report.trim().split('\n').slice(-15).join('\n');
  return summary
    .split('\n')
    .filter((line) => !/^=+( .* =+)?$/.test(line.trim()))
    .join('\n')
    .trim();
}
