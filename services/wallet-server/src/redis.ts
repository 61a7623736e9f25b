import { Redis } from 'ioredis';
import { DependencyError } from './db/db.js';

/** Commands fail at once while Redis is away (no offline queue), so callers answer 502 instead of
 * hanging; the client keeps reconnecting in the background and recovers by itself. */
export function openRedis(url: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    lazyConnect: false,
  });
  redis.on('error', () => undefined); // reported per command through redisCall
  return redis;
}

/** Resolves when the client is connected, or after timeoutMs (false) so a server can start while
 * Redis is still away and answer 502 until it comes. */
export function redisReady(redis: Redis, timeoutMs = 5_000): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ok);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}

/** Runs a Redis command, turning any failure into a DependencyError (502). */
export async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new DependencyError('redis', err);
  }
}
