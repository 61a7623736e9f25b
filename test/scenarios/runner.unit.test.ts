// The runner's own logic (captures, retries, timeouts, expect_error, groups, repeats), with step
// kinds made for the test: they touch no lab, so the control-plane API is never called.
import { setTimeout as pause } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../scenarios/src/load/load-scenario.js';
import type { ScenarioReport, StepReport } from '../../scenarios/src/report/types.js';
import { runScenario } from '../../scenarios/src/run/runner.js';
import { StepFailure } from '../../scenarios/src/steps/failure.js';
import type { AnyStepKind } from '../../scenarios/src/steps/kind.js';
import type { LabApi } from '../../scenarios/src/steps/lab-calls.js';

function testKinds() {
  let calls = 0;
  let inFlight = 0;
  const state = { maxInFlight: 0, budget: 0, aborted: 0, calls: () => calls };
  const kinds: AnyStepKind[] = [
    {
      name: 'echo',
      summary: 'answers its value',
      args: { type: 'object', required: ['value'], properties: { value: {} } },
      run: async (args: { value: unknown }) => args.value,
    },
    {
      name: 'flaky',
      summary: 'fails until its nth call',
      args: { type: 'object', required: ['succeed_on_call'], properties: { succeed_on_call: { type: 'integer' } } },
      run: async (args: { succeed_on_call: number }) => {
        calls++;
        if (calls < args.succeed_on_call)
          throw new StepFailure(`call ${calls} refused`, { status: 503, code: 'NOT_YET' });
        return { call: calls };
      },
    },
    {
      name: 'reach',
      summary: 'a lab service that does not answer until the nth call',
      args: {
        type: 'object',
        required: ['service', 'succeed_on_call'],
        properties: { service: { type: 'string' }, succeed_on_call: { type: 'integer' } },
      },
      run: async (args: { service: string; succeed_on_call: number }) => {
        calls++;
        if (calls < args.succeed_on_call)
          throw new StepFailure(`${args.service} did not answer`, { unreachable: args.service });
        return { call: calls };
      },
    },
    {
      name: 'slow',
      summary: 'takes its time, or gives up when aborted',
      args: { type: 'object', required: ['ms'], properties: { ms: { type: 'integer' } } },
      run: async (args: { ms: number }, context) => {
        inFlight++;
        state.maxInFlight = Math.max(state.maxInFlight, inFlight);
        try {
          await pause(args.ms, undefined, { signal: context.signal });
          return { waited: args.ms };
        } catch (error) {
          state.aborted++;
          throw error;
        } finally {
          inFlight--;
        }
      },
    },
    {
      name: 'spend',
      summary: 'takes an amount from a shared budget',
      args: {
        type: 'object',
        required: ['amount'],
        additionalProperties: false,
        properties: { amount: { type: 'integer' }, note: {} },
      },
      run: async (args: { amount: number }) => {
        inFlight++;
        state.maxInFlight = Math.max(state.maxInFlight, inFlight);
        await pause(5);
        inFlight--;
        if (state.budget < args.amount)
          throw new StepFailure(`budget exhausted (${state.budget} left)`, { code: 'BUDGET' });
        state.budget -= args.amount;
        return { left: state.budget };
      },
    },
    {
      name: 'pay',
      summary: "a payment: a job of the control plane, failed with the job's reason when `fail` is set",
      args: {
        type: 'object',
        properties: { fail: { type: 'string' }, wait: { type: 'boolean' } },
      },
      payment: (args: { wait?: boolean }) => args.wait !== false,
      run: async (args: { fail?: string }) => {
        if (args.fail)
          throw new StepFailure(`job payments-1 failed: ${args.fail}`, { code: 'JOB_FAILED', jobError: args.fail });
        return { paid: true };
      },
    },
  ];
  return { kinds, state };
}

const unusedApi = {
  request: async () => {
    throw new Error('these steps do not call the control plane');
  },
};

/** A control plane that knows only lab `unit`, with one service `svc` in the status `lab.status`. */
function labWithService(lab: { status: string }) {
  return {
    request: async <T>(method: string, path: string): Promise<T> => {
      if (method !== 'GET' || path !== '/labs/unit')
        throw new Error(`these steps call only GET /labs/unit, not ${method} ${path}`);
      return {
        nodes: [],
        services: [{ name: 'svc', kind: 'svc', status: lab.status, restartPolicy: 'no', info: {} }],
      } as T;
    },
  };
}

async function run(
  yaml: string,
  setUp: (state: ReturnType<typeof testKinds>['state']) => void = () => undefined,
  api: LabApi = unusedApi,
): Promise<{ report: ScenarioReport; state: ReturnType<typeof testKinds>['state']; seen: StepReport[] }> {
  const { kinds, state } = testKinds();
  setUp(state);
  const seen: StepReport[] = [];
  const report = await runScenario(parseScenario(yaml, 'test.yaml', kinds), {
    api,
    lab: 'unit',
    kinds,
    onStep: (step) => seen.push(step),
  });
  return { report, state, seen };
}

describe('the scenario runner', () => {
  it('saves values from one step and fills them into later steps and expectations', async () => {
    const { report } = await run(
      [
        'name: captures',
        'vars: { base: 1000, tag: "run-${run.id}" }',
        'steps:',
        '  - echo: { value: { invoice: { request: lnbcrt1xyz, amount_msat: "2500" }, list: [a, b] } }',
        '    save: { invoice: $.invoice, second: "$.list[1]" }',
        '  - echo: { value: { pay: "${invoice.request}", total: "${invoice.amount_msat + base}", note: "${tag}/${second}", lab: "${lab}" } }',
        '    expect: { $.pay: lnbcrt1xyz, $.total: { equals: "${base + 2500}" }, $.note: { matches: "^run-[0-9a-f]{8}/b$" }, $.lab: unit }',
      ].join('\n'),
    );
    expect(report.steps.map((step) => step.error)).toEqual([undefined, undefined]);
    expect(report.passed).toBe(true);
    expect(report.steps[1].output).toMatchObject({ pay: 'lnbcrt1xyz', total: 3500, lab: 'unit' });
  });

  it('tries a failing step again by its retry policy, and says how often it tried', async () => {
    const passes = await run(
      'name: r\nsteps:\n  - flaky: { succeed_on_call: 3 }\n    retry: { attempts: 3, interval: 10ms }\n    expect: { $.call: 3 }\n',
    );
    expect(passes.report.steps[0]).toMatchObject({ status: 'passed', attempts: 3 });
    const fails = await run(
      'name: r\nsteps:\n  - flaky: { succeed_on_call: 5 }\n    retry: { attempts: 2, interval: 10ms }\n',
    );
    expect(fails.report.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: 'call 2 refused (after 2 attempts)',
    });
    const deadline = await run(
      'name: r\nsteps:\n  - flaky: { succeed_on_call: 1000 }\n    retry: { for: 300ms, interval: 50ms }\n',
    );
    // given up at its deadline: a few attempts 50 ms apart, not the thousand it would take to pass
    expect(deadline.report.steps[0]).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^call \d+ refused \(after \d+ attempts\)$/),
    });
    expect(deadline.report.steps[0].attempts).toBeGreaterThanOrEqual(3);
    expect(deadline.report.steps[0].attempts).toBeLessThanOrEqual(8);
  });

  it('does not try again a step whose service the lab reports down until it is started, unless a step runs alongside it', async () => {
    const lab = { status: 'failed' };
    const retried =
      'name: r\nsteps:\n  - reach: { service: svc, succeed_on_call: 3 }\n    retry: { for: 60s, interval: 10ms }\n';
    const downForGood = await run(retried, undefined, labWithService(lab));
    expect(downForGood.report.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
      error:
        'svc did not answer [the lab reports svc failed, restart policy no] (not tried again: svc stays failed until it is started)',
    });
    lab.status = 'stopped';
    expect((await run(retried, undefined, labWithService(lab))).report.steps[0]).toMatchObject({
      status: 'failed',
      attempts: 1,
    });
    lab.status = 'restarting';
    expect((await run(retried, undefined, labWithService(lab))).report.steps[0]).toMatchObject({
      status: 'passed',
      attempts: 3,
    });
    lab.status = 'failed';
    const alongside = await run(
      [
        'name: p',
        'steps:',
        '  - parallel:',
        '      - reach: { service: svc, succeed_on_call: 3 }',
        '        retry: { for: 60s, interval: 10ms }',
        '      - slow: { ms: 300 }',
      ].join('\n'),
      undefined,
      labWithService(lab),
    );
    expect(alongside.report.steps[0].steps?.[0]).toMatchObject({ status: 'passed', attempts: 3 });
  });

  it('ends a step at its timeout and aborts what it was doing', async () => {
    const { report, state } = await run('name: t\nsteps:\n  - slow: { ms: 10000 }\n    timeout: 200ms\n');
    expect(report.steps[0]).toMatchObject({ status: 'failed', error: 'timed out after 200 ms' });
    // the slow work was aborted, not waited for to its end
    expect(state.aborted).toBe(1);
  });

  it('passes a step that fails as expect_error says, and checks the error like an output', async () => {
    const { report } = await run(
      [
        'name: e',
        'steps:',
        '  - flaky: { succeed_on_call: 9 }',
        '    expect_error: { code: NOT_YET, status: 503 }',
        '    expect: { $.message: { matches: refused } }',
        '  - flaky: { succeed_on_call: 9 }',
        '    expect_error: refused',
        '  - flaky: { succeed_on_call: 9 }',
        '    expect_error: { code: GONE }',
      ].join('\n'),
    );
    expect(report.steps.map((step) => [step.status, step.error])).toEqual([
      ['passed', undefined],
      ['passed', undefined],
      ['failed', 'failed, but not as expected (code NOT_YET, not GONE): call 3 refused'],
    ]);
    const succeeded = await run('name: e\nsteps:\n  - echo: { value: 1 }\n    expect_error: anything\n');
    expect(succeeded.report.steps[0].error).toBe('succeeded, but it should have failed (message "anything")');
  });

  it('stops at the first failing step and reports the rest as not run', async () => {
    const { report, seen } = await run(
      'name: s\nsteps:\n  - echo: { value: { n: 1 } }\n    expect: { $.n: 2 }\n  - echo: { value: 2 }\n  - parallel:\n      - echo: { value: 3 }\n',
    );
    expect(report.passed).toBe(false);
    expect(report.steps.map((step) => step.status)).toEqual(['failed', 'skipped', 'skipped']);
    expect(report.steps[0].error).toBe('$.n is 1, expected 2');
    expect(report.steps[2].steps).toEqual([
      expect.objectContaining({ id: '3.1', status: 'skipped', error: 'not run: step 1 failed' }),
    ]);
    expect(seen.map((step) => step.id)).toEqual(['1', '2', '3']);
  });

  it('runs the steps of a parallel group at once; their saves are seen after the group', async () => {
    const { report, state } = await run(
      [
        'name: p',
        'steps:',
        '  - parallel:',
        '      - slow: { ms: 300 }',
        '        save: { a: $.waited }',
        '      - slow: { ms: 300 }',
        '      - slow: { ms: 300 }',
        '  - echo: { value: "${a}" }',
        '    expect: { $: 300 }',
      ].join('\n'),
    );
    expect(report.passed).toBe(true);
    // all three at once, not one after another
    expect(state.maxInFlight).toBe(3);
    expect(report.steps[0].output).toMatchObject({ count: 3, succeeded: 3, failed: 0 });
    expect(report.steps[0].steps?.map((step) => step.id)).toEqual(['1.1', '1.2', '1.3']);
    const failing = await run(
      'name: p\nsteps:\n  - parallel:\n      - echo: { value: 1 }\n      - flaky: { succeed_on_call: 5 }\n',
    );
    expect(failing.report.steps[0].error).toBe('1 of 2 steps failed: 1.2 call 1 refused');
  });

  it('repeats a step with bounded concurrency and counts what succeeded: exactly 5 of 50 against a budget of 5', async () => {
    const yaml = (expectations: string) =>
      `name: r\nsteps:\n  - spend: { amount: 1, note: "\${repeat.index}" }\n    repeat: { count: 50, concurrency: 10 }\n${expectations}`;
    const { report, state } = await run(
      yaml('    expect: { $.succeeded: 5, $.failed: 45, "$.errors[0].count": 45 }\n'),
      (s) => (s.budget = 5),
    );
    expect(report.steps[0].error).toBeUndefined();
    expect(state.maxInFlight).toBe(10);
    const stats = report.steps[0].output as { latency_ms: Record<string, number>; errors: { message: string }[] };
    expect(stats.errors[0].message).toBe('budget exhausted (0 left)');
    expect(stats.latency_ms.p50).toBeGreaterThanOrEqual(stats.latency_ms.min);
    expect(stats.latency_ms.max).toBeGreaterThanOrEqual(stats.latency_ms.p99);
    const strict = await run(yaml(''), (s) => (s.budget = 5));
    expect(strict.report.steps[0].error).toBe('45 of 50 runs failed, e.g. budget exhausted (0 left)');
  });

  it('fills ${...} into expectation paths', async () => {
    const { report } = await run(
      [
        'name: keys',
        'steps:',
        '  - echo: { value: b2 }',
        '    save: { wanted: $ }',
        '  - echo: { value: { items: [{ id: a1, n: 1 }, { id: b2, n: 2 }] } }',
        '    expect: { "$.items[id=${wanted}].n": 2, "$.items[id=${wanted}x]": { exists: false } }',
      ].join('\n'),
    );
    expect(report.steps.map((step) => step.error)).toEqual([undefined, undefined]);
  });

  it('runs the finally: steps whatever happened, and counts their failures', async () => {
    const { report, seen } = await run(
      'name: f\nsteps:\n  - flaky: { succeed_on_call: 9 }\n  - echo: { value: 1 }\nfinally:\n  - echo: { value: cleaned }\n  - flaky: { succeed_on_call: 9 }\n',
    );
    expect(seen.map((step) => [step.id, step.status])).toEqual([
      ['1', 'failed'],
      ['2', 'skipped'],
      ['3', 'passed'],
      ['4', 'failed'],
    ]);
    expect(report.steps[2].output).toBe('cleaned');
    const cleanOnly = await run(
      'name: f\nsteps:\n  - echo: { value: 1 }\nfinally:\n  - flaky: { succeed_on_call: 9 }\n',
    );
    expect(cleanOnly.report.passed).toBe(false);
  });

  it("counts the run's payments in its figures: outcomes, failures by the job's reason, not those only queued", async () => {
    const { report } = await run(
      [
        'name: pays',
        'steps:',
        '  - pay: {}',
        '    repeat: { count: 4, concurrency: 2 }',
        '  - pay: { fail: "alice could not pay: no route" }',
        '    retry: { attempts: 2, interval: 10ms }',
        '  - pay: { wait: false }',
        'finally:',
        '  - echo: { value: done }',
      ].join('\n'),
    );
    expect(report.figures).toMatchObject({
      duration_ms: report.ms,
      steps: { passed: 2, failed: 1, skipped: 1 },
      payments: {
        count: 6,
        succeeded: 4,
        failed: 2,
        failures_by_reason: { 'alice could not pay: no route': 2 },
      },
    });
    expect(report.figures.payments.latency_ms.max).toBeGreaterThanOrEqual(report.figures.payments.latency_ms.p50);
  });

  it('checks the arguments again once ${...} are filled in', async () => {
    const { report } = await run('name: a\nvars: { amount: lots }\nsteps:\n  - spend: { amount: "${amount}" }\n');
    expect(report.steps[0].error).toBe('once ${...} were filled in, the arguments are wrong: amount must be integer');
  });
});
