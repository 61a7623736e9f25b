import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { scenarioSchema } from './schema.js';
import type { Bound, Scenario, Step } from './types.js';
import { WORK_VERBS } from './types.js';

/** What the runner needs from the control plane: the CLI's client fits. */
export interface LabApi {
  request<T>(method: string, path: string, body?: unknown): Promise<T>;
}

export interface StepReport {
  index: number;
  step: string;
  passed: boolean;
  ms: number;
  detail: string;
}

export interface ScenarioReport {
  scenario: string;
  lab: string;
  passed: boolean;
  steps: StepReport[];
}

const validate = new Ajv({ allErrors: true }).compile(scenarioSchema);

export function loadScenario(file: string): Scenario {
  const scenario = parse(readFileSync(file, 'utf8'));
  if (!validate(scenario)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath || '(top level)'} ${error.message}`);
    throw new Error(`${file} is not a valid scenario:\n  ${[...new Set(problems)].join('\n  ')}`);
  }
  return scenario as unknown as Scenario;
}

/** Runs the steps in order; the first step that does not pass ends the run. */
export async function runScenario(api: LabApi, lab: string, scenario: Scenario, onStep: (report: StepReport) => void = () => undefined): Promise<ScenarioReport> {
  const steps: StepReport[] = [];
  for (const [index, step] of scenario.steps.entries()) {
    const started = Date.now();
    let outcome: { passed: boolean; detail: string };
    try {
      const detail = await perform(api, lab, step);
      outcome = step.expect_error ? { passed: false, detail: `succeeded, but an error containing "${step.expect_error}" was expected (${detail})` } : { passed: true, detail };
    } catch (error) {
      const message = (error as Error).message;
      outcome = step.expect_error && message.includes(step.expect_error) ? { passed: true, detail: `refused as expected: ${message}` } : { passed: false, detail: message };
    }
    const report = { index: index + 1, step: describe(step), ms: Date.now() - started, ...outcome };
    steps.push(report);
    onStep(report);
    if (!report.passed) break;
  }
  return { scenario: scenario.name, lab, passed: steps.length === scenario.steps.length && steps.every((step) => step.passed), steps };
}

function describe(step: Step): string {
  const verb = Object.keys(step).find((key) => key !== 'expect_error')!;
  return `${verb} ${JSON.stringify((step as Record<string, unknown>)[verb])}`;
}

type Job = { state: string; result?: Record<string, unknown>; error?: string };

async function perform(api: LabApi, lab: string, step: Step): Promise<string> {
  const verb = WORK_VERBS.find((candidate) => candidate in step);
  if (verb) {
    const path = { mine: 'mine', fund: 'fund', channel: 'channels', pay: 'payments' }[verb];
    const job = await api.request<Job>('POST', `/labs/${lab}/${path}?wait=true`, (step as Record<string, unknown>)[verb]);
    if (job.state !== 'completed') throw new Error(job.error ?? `job ${job.state}`);
    return JSON.stringify(job.result);
  }
  if ('expect' in step) return checkEventually(api, lab, step.expect);
  throw new Error('unknown step');
}

/**
 * Balances settle a moment after a payment returns (the payee's commitment update is still in
 * flight), so an expectation is checked again for up to 10 s before it fails.
 */
async function checkEventually(api: LabApi, lab: string, expectation: Extract<Step, { expect: unknown }>['expect']): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await check(api, lab, expectation);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

type Inspected = { chain: { height: number }; nodes: { name: string; chainBalanceSat?: number; channelBalanceSat?: number }[] };

async function check(api: LabApi, lab: string, expectation: Extract<Step, { expect: unknown }>['expect']): Promise<string> {
  const inspected = await api.request<Inspected>('GET', `/labs/${lab}`);
  const failures: string[] = [];
  const seen: string[] = [];
  const compare = (what: string, actual: number | undefined, bound: Bound | undefined) => {
    if (bound === undefined) return;
    seen.push(`${what} ${actual}`);
    const { at_least, at_most } = typeof bound === 'number' ? { at_least: bound, at_most: bound } : bound;
    if (actual === undefined || (at_least !== undefined && actual < at_least) || (at_most !== undefined && actual > at_most)) {
      failures.push(`${what} is ${actual}, expected ${typeof bound === 'number' ? bound : JSON.stringify(bound)}`);
    }
  };
  compare('height', inspected.chain.height, expectation.height);
  if (expectation.node) {
    const node = inspected.nodes.find((candidate) => candidate.name === expectation.node);
    if (!node) throw new Error(`lab ${lab} has no node "${expectation.node}"`);
    compare(`${node.name} channel balance`, node.channelBalanceSat, expectation.channel_balance_sat);
    compare(`${node.name} on-chain balance`, node.chainBalanceSat, expectation.chain_balance_sat);
  }
  if (failures.length > 0) throw new Error(failures.join('; '));
  return seen.join(', ');
}
