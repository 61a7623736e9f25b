// The control plane's API about one lab, as steps use it: plain calls, and jobs followed until
// they have finished.
import { randomUUID } from 'node:crypto';
import { setTimeout as pause } from 'node:timers/promises';
import { JOB_FAILED, StepFailure } from './failure.js';

/**
 * The control plane's HTTP API; the CLI's client fits. Errors carry `status` and `code`. A request
 * with an `idempotencyKey` may be sent again (the CLI's client does when the control plane restarts).
 */
export interface LabApi {
  request<T>(
    method: string,
    path: string,
    body?: unknown,
    options?: { signal?: AbortSignal; idempotencyKey?: string },
  ): Promise<T>;
}

export interface JobView {
  id: string;
  state: string;
  result?: Record<string, unknown>;
  error?: string;
}

/** How often an unfinished job is looked at again. */
const JOB_POLL_MS = 250;

export class LabCalls {
  constructor(
    private readonly api: LabApi,
    readonly lab: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** `path` under /labs/{lab}; an empty path is the lab itself. */
  get<T>(path = ''): Promise<T> {
    return this.api.request<T>('GET', `/labs/${this.lab}${path}`, undefined, { signal: this.signal });
  }

  /** `idempotencyKey`: the request may be sent again, as a job queued once (see LabApi). */
  post<T>(path: string, body: unknown = {}, idempotencyKey?: string): Promise<T> {
    return this.api.request<T>('POST', `/labs/${this.lab}${path}`, body, { signal: this.signal, idempotencyKey });
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.api.request<T>('PUT', `/labs/${this.lab}${path}`, body, { signal: this.signal });
  }

  delete<T>(path: string): Promise<T> {
    return this.api.request<T>('DELETE', `/labs/${this.lab}${path}`, undefined, { signal: this.signal });
  }

  /** Queues a job and answers its result once it has completed; a failed job is a StepFailure. */
  async runJob(path: string, body: unknown): Promise<Record<string, unknown>> {
    const view = await this.post<JobView>(`${path}?wait=true`, body, randomUUID());
    return this.finished(view);
  }

  /** Queues a job and answers at once with `{job, state, url}`. */
  startJob(path: string, body: unknown): Promise<{ job: string; state: string; url: string }> {
    return this.post(path, body, randomUUID());
  }

  async waitForJob(id: string): Promise<Record<string, unknown>> {
    return this.finished(
      await this.api.request<JobView>('GET', `/jobs/${encodeURIComponent(id)}`, undefined, { signal: this.signal }),
    );
  }

  private async finished(view: JobView): Promise<Record<string, unknown>> {
    for (;;) {
      if (view.state === 'completed') return view.result ?? {};
      if (view.state === 'failed') {
        const reason = view.error ?? 'no reason given';
        throw new StepFailure(`job ${view.id} failed: ${reason}`, { code: JOB_FAILED, jobError: reason });
      }
      await pause(JOB_POLL_MS, undefined, { signal: this.signal });
      view = await this.api.request<JobView>('GET', `/jobs/${encodeURIComponent(view.id)}`, undefined, {
        signal: this.signal,
      });
    }
  }
}
