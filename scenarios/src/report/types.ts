// What a run reports: per scenario its steps, each with its outcome, time, attempts and output.
import type { RunStatistics } from '../run/statistics.js';
import type { ScenarioFigures } from './figures.js';

export type StepStatus = 'passed' | 'failed' | 'skipped';

export interface StepReport {
  /** "3", or "3.2" inside the parallel group at 3. */
  id: string;
  label: string;
  /** The action, or "parallel". */
  kind: string;
  line: number;
  status: StepStatus;
  passed: boolean;
  ms: number;
  attempts: number;
  /** What the step answered (for a repeated step or a group: its statistics). */
  output?: unknown;
  /** Why it failed, or why it was not run. */
  error?: string;
  /** The steps of a parallel group. */
  steps?: StepReport[];
}

export interface ScenarioReport {
  scenario: string;
  file: string;
  lab: string;
  passed: boolean;
  startedAt: string;
  ms: number;
  steps: StepReport[];
  /** What the run did, in figures: durations, steps by outcome, payments. */
  figures: ScenarioFigures;
}

export interface RunReport {
  lab: string;
  passed: boolean;
  scenarios: ScenarioReport[];
}

export function isStatistics(output: unknown): output is RunStatistics {
  return output !== null && typeof output === 'object' && 'latency_ms' in output && 'succeeded' in output;
}

/** Every step and every step of every group, in order. */
export function flattenSteps(steps: StepReport[]): StepReport[] {
  return steps.flatMap((step) => [step, ...flattenSteps(step.steps ?? [])]);
}
