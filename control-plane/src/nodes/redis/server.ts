import { existsSync, mkdirSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { ProcessLaunch } from '../../runtimes/process/child.js';

export function redisServerBinary(): string {
  const binary = process.env.REGLAB_REDIS_SERVER ?? '/usr/bin/redis-server';
  if (!existsSync(binary)) {
    throw new Error('redis-server not found: install it with `apt-get install redis-server` or set REGLAB_REDIS_SERVER');
  }
  return binary;
}

/** A Redis that writes nothing to disk on its own (lab queues and cool-downs live as long as the lab); it loads dump.rdb from its folder when there is one (a restored snapshot). */
export function redisArgs(dataDir: string, port: number, host = '127.0.0.1'): string[] {
  return ['--port', String(port), '--bind', host, '--dir', dataDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--protected-mode', 'no'];
}

export function redisLaunch(dataDir: string, port: number): ProcessLaunch {
  mkdirSync(dataDir, { recursive: true });
  return { command: redisServerBinary(), args: redisArgs(dataDir, port) };
}

export const redisUrl = (port: number) => `redis://127.0.0.1:${port}`;

/** Writes the Redis at `url`'s data to dump.rdb in its folder, which it loads when it starts. */
export async function saveRedis(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
  client.on('error', () => undefined); // the failed command says it
  try {
    await client.connect();
    await client.save();
  } finally {
    client.disconnect();
  }
}

/** True when a Redis answers PING at `url`; throws while it cannot be reached or does not answer within a second. */
export async function pingRedis(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000, commandTimeout: 1_000 });
  client.on('error', () => undefined); // the failed connect() below already says it
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
}
