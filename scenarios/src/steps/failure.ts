// How a step fails: a message for people, and what `expect_error` can match on.

export interface FailureDetails {
  /** The HTTP status of the refusal. */
  status?: number;
  /** The refusal's error code (UPPER_SNAKE from the lab's services, lower from the control plane). */
  code?: string;
  /** The whole answer, for `expect` after an `expect_error`. */
  body?: unknown;
  /** The lab service that did not answer at all, so the run can say what happened to it. */
  unreachable?: string;
  /** Why a job of the control plane failed, in its words (the step's message wraps it). */
  jobError?: string;
}

/** The code of a step whose control-plane job failed; the job's own reason is in `jobError`. */
export const JOB_FAILED = 'JOB_FAILED';

export class StepFailure extends Error {
  readonly status?: number;
  readonly code?: string;
  readonly body?: unknown;
  readonly unreachable?: string;
  readonly jobError?: string;

  constructor(message: string, details: FailureDetails = {}) {
    super(message);
    this.name = 'StepFailure';
    Object.assign(this, details);
  }
}

/** The fields expect_error matches on, from a step failure or a control-plane refusal. */
export function failureView(error: unknown): { message: string; status?: number; code?: string; body?: unknown } {
  const { message, status, code, body } = error as {
    message?: string;
    status?: unknown;
    code?: unknown;
    body?: unknown;
  };
  return {
    message: message ?? String(error),
    ...(typeof status === 'number' ? { status } : {}),
    ...(typeof code === 'string' ? { code } : {}),
    ...(body !== undefined ? { body } : {}),
  };
}

/** What a failure is counted under in a report's figures: its code, or for a failed job, the control plane's reason. */
export function failureReason(error: unknown): string {
  const { code, jobError, message } = error as { code?: unknown; jobError?: unknown; message?: unknown };
  if (typeof code === 'string' && code !== JOB_FAILED) return code;
  if (typeof jobError === 'string') return jobError;
  return typeof message === 'string' ? message : String(error);
}
