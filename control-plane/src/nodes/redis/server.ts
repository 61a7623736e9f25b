import { existsSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import type { ProcessLaunch } from '../../runtimes/process/child.js';

export function redisServerBinary(): string {
  const binary = process.env.REGLAB_REDIS_SERVER ?? '/usr/bin/redis-server';
  if (!existsSync(binary)) {
    throw new Error(
      'redis-server not found: install it with `apt-get install redis-server` or set REGLAB_REDIS_SERVER',
    );
  }
  return binary;
}

/**
 * A Redis that writes nothing to disk on its own, and loads dump.rdb from its folder when there is
 * one. `keepWrites`: it appends every write to its append-only file before it answers (no fsync:
 * the kernel has it), so a Redis killed and restarted has every write it answered. Its folder then
 * holds appendonlydir/, which it loads instead of dump.rdb (a snapshot copies both).
 */
export function redisArgs(dataDir: string, port: number, host = '127.0.0.1', keepWrites = false): string[] {
  const persistence = keepWrites ? ['--appendonly', 'yes', '--appendfsync', 'no'] : ['--appendonly', 'no'];
  return [
    '--port',
    String(port),
    '--bind',
    host,
    '--dir',
    dataDir,
    '--save',
    '',
    ...persistence,
    '--daemonize',
    'no',
    '--protected-mode',
    'no',
  ];
}

export function redisLaunch(dataDir: string, port: number): ProcessLaunch {
  mkdirSync(dataDir, { recursive: true });
  return { command: redisServerBinary(), args: redisArgs(dataDir, port) };
}

export const redisUrl = (port: number) => `redis://127.0.0.1:${port}`;

/** Writes the Redis at `url`'s data to dump.rdb in its folder, which it loads when it starts. */
export async function saveRedis(url: string): Promise<void> {
  await simpleCommand(url, 'SAVE', 60_000);
}

/** True when a Redis answers PING at `url`; throws while it cannot be reached or does not answer within a second. */
export async function pingRedis(url: string): Promise<boolean> {
  return (await simpleCommand(url, 'PING', 1_000)) === 'PONG';
}

/**
 * Sends one command to the Redis at `url` (one it manages: no password) and answers its one-line
 * reply. PING and SAVE are all the control plane asks of a Redis: a client library would be a
 * tenth of its start.
 */
function simpleCommand(url: string, command: string, timeoutMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    const fail = (message: string) => {
      socket.destroy();
      reject(new Error(`Redis at ${url}: ${message}`));
    };
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => fail(`no answer to ${command} within ${timeoutMs} ms`));
    socket.on('error', (error) => fail(error.message));
    socket.on('close', () => fail(`the connection closed before it answered ${command}`));
    socket.on('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: string) => {
      reply += chunk;
      const end = reply.indexOf('\r\n');
      if (end < 0) return;
      const line = reply.slice(0, end);
      socket.destroy();
      if (line.startsWith('+')) resolve(line.slice(1));
      else reject(new Error(`Redis at ${url} answered ${command} with ${line.replace(/^-/, '')}`));
    });
  });
}
