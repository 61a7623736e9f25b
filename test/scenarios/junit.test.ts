// The JUnit report as CI reads it: written from a real run of the runner, then read back by
// junitparser (PyPI), which must see the suites, cases, failures, skips and times of the run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario } from '../../scenarios/src/load/load-scenario.js';
import { junitXml } from '../../scenarios/src/report/junit.js';
import { flattenSteps, type RunReport } from '../../scenarios/src/report/types.js';
import { runScenario } from '../../scenarios/src/run/runner.js';
import { StepFailure } from '../../scenarios/src/steps/failure.js';
import type { AnyStepKind } from '../../scenarios/src/steps/kind.js';
import { readJunit } from './junit-reader.js';

const kinds: AnyStepKind[] = [
  {
    name: 'echo',
    summary: 'answers its value',
    args: { type: 'object', properties: { value: {}, ms: { type: 'integer' } } },
    run: async (args: { value?: unknown; ms?: number }) => {
      await new Promise((resolve) => setTimeout(resolve, args.ms ?? 0));
      return args.value;
    },
  },
  {
    name: 'refuse',
    summary: 'fails',
    args: { type: 'object', properties: { why: { type: 'string' } } },
    run: async (args: { why: string }) => {
      throw new StepFailure(args.why, { code: 'REFUSED' });
    },
  },
  {
    name: 'pay',
    summary: 'a payment, refused with its code when `refuse` names one',
    args: { type: 'object', properties: { refuse: { type: 'string' } } },
    payment: () => true,
    run: async (args: { refuse?: string }) => {
      if (args.refuse) throw new StepFailure('the payment failed', { code: args.refuse });
      return { paid: true };
    },
  },
];
const unusedApi = {
  request: async () => {
    throw new Error('not called');
  },
};

async function runOf(yaml: string, file: string) {
  return runScenario(parseScenario(yaml, file, kinds), { api: unusedApi, lab: 'unit', kinds });
}

describe('JUnit report', () => {
  let report: RunReport;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reglab-junit-'));
    const passing = await runOf(
      'name: all good\nsteps:\n  - echo: { value: { paid: true }, ms: 120 }\n  - parallel:\n      - echo: { value: 1, ms: 30 }\n      - echo: { value: 2 }\n  - pay: {}\n    repeat: { count: 3, concurrency: 1 }\n  - pay: { refuse: NO_ROUTE }\n    expect_error: { code: NO_ROUTE }\n',
      'good.yaml',
    );
    const failing = await runOf(
      'name: "payment <fails> & stops"\nsteps:\n  - echo: { value: "a \\u0001 control & <tag>", ms: 60 }\n  - refuse: { why: "the node said \\"no\\" <twice>\\u0007" }\n  - echo: { value: never }\n',
      'bad.yaml',
    );
    report = { lab: 'unit', passed: false, scenarios: [passing, failing] };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is read by junitparser with the suites, cases, failures, skips and times of the run', async () => {
    const file = join(dir, 'report.xml');
    writeFileSync(file, junitXml(report));
    const suites = await readJunit(file);

    expect(suites.map((suite) => [suite.name, suite.tests, suite.failures, suite.skipped, suite.errors])).toEqual([
      ['all good', 6, 0, 0, 0],
      ['payment <fails> & stops', 3, 1, 1, 0],
    ]);
    report.scenarios.forEach((scenario, index) => {
      const steps = flattenSteps(scenario.steps);
      expect(suites[index].time).toBeCloseTo(scenario.ms / 1000, 3);
      expect(suites[index].cases.map((c) => c.name)).toEqual(steps.map((step) => `${step.id}. ${step.label}`));
      expect(suites[index].cases.map((c) => c.time)).toEqual(steps.map((step) => Number((step.ms / 1000).toFixed(3))));
    });
    expect(suites[0].cases[0].time).toBeGreaterThanOrEqual(0.12);
    expect(JSON.parse(suites[0].cases[0].system_out!)).toEqual({ paid: true });
    const [written, refused, notRun] = suites[1].cases;
    // the output is JSON, which escapes control characters; a raw one (in the failure) is dropped
    expect(written.system_out).toBe('"a \\u0001 control & <tag>"');
    expect(refused.results).toEqual([{ kind: 'Failure', message: 'the node said "no" <twice>' }]);
    expect(notRun.results).toEqual([{ kind: 'Skipped', message: 'not run: step 2 failed' }]);
    expect(refused.classname).toBe('payment <fails> & stops');
  });

  it("carries each run's figures as the suite's properties: duration, steps, payments and their failures by reason", async () => {
    const file = join(dir, 'figures.xml');
    writeFileSync(file, junitXml(report));
    const [good, bad] = await readJunit(file);
    const figures = report.scenarios[0].figures;
    expect(figures.payments).toMatchObject({ count: 4, succeeded: 3, failed: 1, failures_by_reason: { NO_ROUTE: 1 } });
    expect(good.properties).toMatchObject({
      lab: 'unit',
      duration_ms: String(report.scenarios[0].ms),
      'steps.passed': '6',
      'steps.failed': '0',
      'payments.count': '4',
      'payments.succeeded': '3',
      'payments.failed': '1',
      'payments.failures_by_reason.NO_ROUTE': '1',
      'payments.latency_ms.p95': String(figures.payments.latency_ms.p95),
    });
    expect(bad.properties).toMatchObject({ 'steps.failed': '1', 'steps.skipped': '1', 'payments.count': '0' });
  });

  it('counts every step of the run, groups included, at the top', () => {
    const xml = junitXml(report);
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="reglab scenarios" tests="9" failures="1" errors="0" skipped="1" time="\d+\.\d{3}">/,
    );
  });
});
