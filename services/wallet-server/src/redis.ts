import { DependencyError } from './db/db.js';

/** Runs a Redis command, turning any failure into a DependencyError (502). */
export async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new DependencyError('redis', err);
  }
}
