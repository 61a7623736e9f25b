// A scenario as the runner sees it, after its file was validated.
import type { Expectations } from './language/expectations.js';

export interface Scenario {
  file: string;
  name: string;
  /** `vars:` of the file, in order; their values may refer to earlier ones and to built-ins. */
  vars: Record<string, unknown>;
  steps: Step[];
  /** `finally:` steps: run after the steps whatever happened (to stop auto-mining, start a stopped service). */
  cleanup: Step[];
}

export type Step = ActionStep | ParallelStep;

export interface StepBase {
  /** "3" for the third step, "3.2" for the second step of the parallel group at 3. */
  id: string;
  /** Its `name:`, or the action and its arguments. */
  label: string;
  line: number;
  timeoutMs: number;
  retry?: RetryPolicy;
  /** Variable name -> path of the output. */
  save: Record<string, string>;
  expect?: Expectations;
  expectError?: ErrorExpectation;
}

export interface ActionStep extends StepBase {
  type: 'action';
  kind: string;
  args: Record<string, unknown>;
  repeat?: { count: number; concurrency: number };
}

export interface ParallelStep extends StepBase {
  type: 'parallel';
  steps: Step[];
}

/** A failed attempt is tried again until `attempts` are used or `forMs` has passed. */
export interface RetryPolicy {
  attempts?: number;
  forMs?: number;
  intervalMs: number;
}

/** The step passes only when it fails this way. */
export interface ErrorExpectation {
  /** Text the error message contains. */
  message?: string;
  code?: string;
  status?: number;
}
