import { describeError } from './errors.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Says what was awaited, for the error thrown on time-out. */
  what: string;
  /** An error for which waiting longer is pointless (the process died): rethrown at once. */
  stopOn?: (error: unknown) => boolean;
}

/**
 * Polls `probe` until it returns a value other than undefined/false, or throws after the time-out
 * with the last error the probe raised (which is usually what the user needs to see).
 */
export async function waitFor<T>(probe: () => Promise<T | undefined | false>, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as T;
    } catch (error) {
      if (options.stopOn?.(error)) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError === undefined ? '' : `: ${describeError(lastError)}`;
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${reason}`);
    }
    await sleep(options.intervalMs ?? 200);
  }
}

/** Runs `operation` again while it fails with an error `retryable` accepts, until the time-out. */
export async function retryWhile<T>(
  operation: () => Promise<T>,
  retryable: (error: unknown) => boolean,
  options: { timeoutMs: number; intervalMs: number; onRetry?: (error: unknown) => void },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!retryable(error) || Date.now() > deadline) throw error;
      options.onRetry?.(error);
      await sleep(options.intervalMs);
    }
  }
}

/** What `work` answers, or an error with `message` when it has not answered within `ms` (the work itself goes on). */
export function withTimeout<T>(work: Promise<T>, ms: number, message = `no answer within ${ms} ms`): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
