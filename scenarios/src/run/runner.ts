// Runs a validated scenario against a lab: steps in order (a parallel group's steps at once, a
// repeated step N times), each attempt bounded by its timeout and tried again by its retry
// policy, then checked (expect_error, expect) and its values saved. The first step that fails
// ends the scenario; the steps after it are reported as not run.
import { randomBytes } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import type { ErrorObject } from 'ajv';
import { describeError } from '../../../lib/errors.js';
import { formatDuration } from '../language/durations.js';
import { unmetExpectations, type Expectations } from '../language/expectations.js';
import { select } from '../language/json-path.js';
import { interpolate, type Lookup } from '../language/templates.js';
import { argumentValidator } from '../load/load-scenario.js';
import type { ActionStep, ErrorExpectation, ParallelStep, Scenario, Step } from '../model.js';
import { scenarioFigures } from '../report/figures.js';
import { flattenSteps, type ScenarioReport, type StepReport } from '../report/types.js';
import { failureReason, failureView, StepFailure } from '../steps/failure.js';
import { STEP_KINDS } from '../steps/index.js';
import type { AnyStepKind, StepContext } from '../steps/kind.js';
import { LabCalls, type LabApi } from '../steps/lab-calls.js';
import { ServiceDirectory, type LabView, type ServiceView } from '../steps/services.js';
import { WalletUsers } from '../steps/wallet-users.js';
import { ClientAddresses } from './clients.js';
import { diagnose, downUntilStarted, type Fault } from './diagnosis.js';
import { runPool, summarise, type RunOutcome, type RunStatistics } from './statistics.js';

export interface RunOptions {
  api: LabApi;
  lab: string;
  kinds?: readonly AnyStepKind[];
  /** Called as each step of the scenario (not of a group) ends or is passed over. */
  onStep?(report: StepReport): void;
}

export function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioReport> {
  return new ScenarioRun(scenario, options).run();
}

type Attempt =
  | { ok: true; output: unknown; children?: StepReport[] }
  | { ok: false; error: unknown; output?: unknown; children?: StepReport[] };

class ScenarioRun {
  private readonly variables = new Map<string, unknown>();
  private readonly faults: Fault[] = [];
  private readonly users = new WalletUsers();
  private readonly clients = new ClientAddresses();
  private readonly services: ServiceDirectory;
  private readonly kinds: Map<string, AnyStepKind>;
  private labAtStart?: LabView;
  /** Every attempt of a payment step, for the report's figures. */
  private readonly payments: RunOutcome[] = [];
  /** Steps (not groups) running now: more than one inside a parallel group. */
  private stepsRunning = 0;

  constructor(
    private readonly scenario: Scenario,
    private readonly options: RunOptions,
  ) {
    this.services = new ServiceDirectory(() => new LabCalls(options.api, options.lab).get<LabView>());
    this.kinds = new Map((options.kinds ?? STEP_KINDS).map((kind) => [kind.name, kind]));
  }

  async run(): Promise<ScenarioReport> {
    const startedAt = new Date();
    const reports: StepReport[] = [];
    // how the lab was at the start, so that a failure can say what changed since
    this.labAtStart = await this.services.fresh().catch(() => undefined);
    let failure = this.defineVariables();
    for (const step of this.scenario.steps) {
      const report = failure ? notRun(step, failure) : await this.runStep(step, this.lookup);
      if (!failure && report.status === 'failed') failure = `not run: step ${report.id} failed`;
      reports.push(report);
      this.options.onStep?.(report);
    }
    for (const step of this.scenario.cleanup) {
      const report = await this.runStep(step, this.lookup);
      reports.push(report);
      this.options.onStep?.(report);
    }
    const ms = Date.now() - startedAt.getTime();
    return {
      scenario: this.scenario.name,
      file: this.scenario.file,
      lab: this.options.lab,
      passed: reports.every((report) => report.passed),
      startedAt: startedAt.toISOString(),
      ms,
      steps: reports,
      figures: scenarioFigures(flattenSteps(reports), this.payments, ms),
    };
  }

  private readonly lookup: Lookup = (name) => this.variables.get(name);

  /** The built-ins and `vars:`; answers why nothing can run when a value cannot be worked out. */
  private defineVariables(): string | undefined {
    this.variables.set('run', { id: randomBytes(4).toString('hex') });
    this.variables.set('lab', this.options.lab);
    try {
      for (const [name, value] of Object.entries(this.scenario.vars))
        this.variables.set(name, interpolate(value, this.lookup));
      return undefined;
    } catch (error) {
      return `not run: vars: ${describeError(error)}`;
    }
  }

  private async runStep(step: Step, lookup: Lookup): Promise<StepReport> {
    const started = Date.now();
    const retry = step.retry;
    const deadline = retry?.forMs === undefined ? Number.POSITIVE_INFINITY : started + retry.forMs;
    let attempts = 0;
    let attempt: Attempt;
    let downForGood: ServiceView | undefined;
    this.stepsRunning += step.type === 'parallel' ? 0 : 1;
    try {
      for (;;) {
        attempts++;
        attempt = await this.attempt(step, lookup);
        const again =
          !attempt.ok &&
          retry &&
          (retry.attempts === undefined || attempts < retry.attempts) &&
          Date.now() + retry.intervalMs <= deadline;
        if (!again) break;
        // a step running alongside this one may start the service again: only a lone step gives up
        downForGood =
          !attempt.ok && this.stepsRunning === 1 ? await downUntilStarted(attempt.error, this.services) : undefined;
        if (downForGood) break;
        await pause(retry.intervalMs);
      }
    } finally {
      this.stepsRunning -= step.type === 'parallel' ? 0 : 1;
    }
    const report = {
      id: step.id,
      label: step.label,
      kind: step.type === 'parallel' ? 'parallel' : step.kind,
      line: step.line,
      ms: Date.now() - started,
      attempts,
      output: attempt.output,
      ...(attempt.children ? { steps: attempt.children } : {}),
    };
    if (attempt.ok) return { ...report, status: 'passed', passed: true };
    const error = await diagnose(attempt.error, this.faults, this.services, this.labAtStart);
    const notes = [
      ...(attempts > 1 ? [`after ${attempts} attempts`] : []),
      ...(downForGood ? [`not tried again: ${downForGood.name} stays ${downForGood.status} until it is started`] : []),
    ];
    return {
      ...report,
      status: 'failed',
      passed: false,
      error: notes.length > 0 ? `${error} (${notes.join('; ')})` : error,
    };
  }

  /** One try of a step: its action (or group, or repetitions), then expect_error, expect and save. */
  private async attempt(step: Step, lookup: Lookup): Promise<Attempt> {
    let output: unknown;
    let children: StepReport[] | undefined;
    if (step.type === 'parallel') {
      children = await withTimeout(step.timeoutMs, () =>
        Promise.all(step.steps.map((child) => this.runStep(child, lookup))),
      );
      output = summarise(children.map((child) => ({ ok: child.passed, ms: child.ms, error: child.error })));
      if (!step.expect && !children.every((child) => child.passed))
        return { ok: false, error: new Error(groupFailure(step, children)), output, children };
    } else if (step.repeat) {
      output = await this.repeated(step, step.repeat, lookup);
      const { failed, count, errors } = output as RunStatistics;
      if (!step.expect && failed > 0)
        return { ok: false, error: new Error(`${failed} of ${count} runs failed, e.g. ${errors[0].message}`), output };
    } else {
      try {
        output = await this.action(step, lookup);
        if (step.expectError)
          return {
            ok: false,
            error: new Error(`succeeded, but it should have failed (${describeExpectedError(step.expectError)})`),
            output,
          };
      } catch (error) {
        if (!step.expectError) return { ok: false, error };
        output = failureView(error);
        const mismatch = errorMismatch(output as ReturnType<typeof failureView>, step.expectError);
        if (mismatch)
          return {
            ok: false,
            error: new Error(`failed, but not as expected (${mismatch}): ${describeError(error)}`),
            output,
          };
      }
    }
    try {
      const unmet = step.expect ? unmetExpectations(output, expectationsFor(step.expect, lookup)) : [];
      if (unmet.length > 0) return { ok: false, error: new Error(unmet.join('; ')), output, children };
      const saved = Object.entries(step.save).map(
        ([name, path]) => [name, select(output, String(interpolate(path, lookup)))] as const,
      );
      saved.forEach(([name, value]) => this.variables.set(name, value));
    } catch (error) {
      return { ok: false, error, output, children };
    }
    return { ok: true, output, children };
  }

  private async repeated(
    step: ActionStep,
    repeat: { count: number; concurrency: number },
    lookup: Lookup,
  ): Promise<RunStatistics> {
    const outcomes = await runPool(repeat.count, repeat.concurrency, async (index) => {
      const started = Date.now();
      const iteration: Lookup = (name) => (name === 'repeat' ? { index, count: repeat.count } : lookup(name));
      try {
        await this.action(step, iteration);
        return { ok: true, ms: Date.now() - started };
      } catch (error) {
        return { ok: false, ms: Date.now() - started, error: describeError(error) };
      }
    });
    return summarise(outcomes);
  }

  private async action(step: ActionStep, lookup: Lookup): Promise<unknown> {
    const kind = this.kinds.get(step.kind)!;
    const args = interpolate(step.args, lookup) as Record<string, unknown>;
    const validate = argumentValidator(kind);
    if (!validate(args))
      throw new StepFailure(
        `once \${...} were filled in, the arguments are wrong: ${describeSchemaErrors(validate.errors)}`,
        { code: 'INVALID_ARGUMENTS' },
      );
    const broken = kind.check?.(args) ?? [];
    if (broken.length > 0)
      throw new StepFailure(`once \${...} were filled in, the arguments are wrong: ${broken.join('; ')}`, {
        code: 'INVALID_ARGUMENTS',
      });
    if (kind.payment?.(args) !== true)
      return withTimeout(step.timeoutMs, (signal) => kind.run(args, this.context(step, signal)));
    const started = Date.now();
    try {
      const output = await withTimeout(step.timeoutMs, (signal) => kind.run(args, this.context(step, signal)));
      this.payments.push({ ok: true, ms: Date.now() - started });
      return output;
    } catch (error) {
      this.payments.push({ ok: false, ms: Date.now() - started, error: failureReason(error) });
      throw error;
    }
  }

  private context(step: Step, signal: AbortSignal): StepContext {
    return {
      lab: new LabCalls(this.options.api, this.options.lab, signal),
      services: this.services,
      users: this.users,
      recordFault: (fault) => this.faults.push({ ...fault, stepId: step.id }),
      clientAddress: (client) => this.clients.address(client),
      signal,
    };
  }
}

/** Runs `work`, failing with TIMEOUT (and aborting its signal) once `ms` have passed. */
async function withTimeout<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  if (!Number.isFinite(ms)) return work(controller.signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new StepFailure(`timed out after ${formatDuration(ms)}`, { code: 'TIMEOUT' });
      controller.abort(error);
      reject(error);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Expectations with their ${...} filled in, paths (keys) included. */
function expectationsFor(expect: Expectations, lookup: Lookup): Expectations {
  return Object.fromEntries(
    Object.entries(expect).map(([path, expected]) => [
      String(interpolate(path, lookup)),
      interpolate(expected, lookup),
    ]),
  );
}

function notRun(step: Step, reason: string): StepReport {
  return {
    id: step.id,
    label: step.label,
    kind: step.type === 'parallel' ? 'parallel' : step.kind,
    line: step.line,
    status: 'skipped',
    passed: false,
    ms: 0,
    attempts: 0,
    error: reason,
    ...(step.type === 'parallel' ? { steps: step.steps.map((child) => notRun(child, reason)) } : {}),
  };
}

function groupFailure(group: ParallelStep, children: StepReport[]): string {
  const failed = children.filter((child) => !child.passed);
  return `${failed.length} of ${group.steps.length} steps failed: ${failed.map((child) => `${child.id} ${child.error}`).join('; ')}`;
}

function errorMismatch(
  actual: { message: string; status?: number; code?: string },
  expected: ErrorExpectation,
): string | undefined {
  if (expected.status !== undefined && actual.status !== expected.status)
    return `status ${actual.status ?? 'none'}, not ${expected.status}`;
  if (expected.code !== undefined && actual.code !== expected.code)
    return `code ${actual.code ?? 'none'}, not ${expected.code}`;
  if (expected.message !== undefined && !actual.message.includes(expected.message))
    return `the message does not contain "${expected.message}"`;
  return undefined;
}

function describeExpectedError(expected: ErrorExpectation): string {
  return Object.entries(expected)
    .map(([key, value]) => `${key} ${JSON.stringify(value)}`)
    .join(', ');
}

function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .filter((error) => error.keyword !== 'oneOf')
    .map((error) => `${error.instancePath.slice(1).replace(/\//g, '.') || 'the arguments'} ${error.message}`)
    .join('; ');
}
