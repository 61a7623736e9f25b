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
}

export class StepFailure extends Error {
  readonly status?: number;
  readonly code?: string;
  readonly body?: unknown;
  readonly unreachable?: string;

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
