import { existsSync, mkdirSync } from 'node:fs';
import type { ProcessLaunch } from '../runtimes/process/child.js';

export function redisServerBinary(): string {
  const binary = process.env.REGLAB_REDIS_SERVER ?? '/usr/bin/redis-server';
  if (!existsSync(binary)) {
    throw new Error('redis-server not found: install it with `apt-get install redis-server` or set REGLAB_REDIS_SERVER');
  }
  return binary;
}

export function redisLaunch(dataDir: string, port: number): ProcessLaunch {
  mkdirSync(dataDir, { recursive: true });
  return {
    command: redisServerBinary(),
    args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dataDir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
  };
}

export const redisUrl = (port: number) => `redis://127.0.0.1:${port}`;
