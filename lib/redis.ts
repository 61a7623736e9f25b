// How the lab services keep a Redis client: they start while Redis is still away, answer at once
// (an error, not a hang) while it is away, and recover by themselves when it comes back.
import { Redis } from 'ioredis';

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
