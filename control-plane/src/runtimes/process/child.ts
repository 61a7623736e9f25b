import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { sleep } from '../../../../lib/wait.js';

export interface ProcessLaunch {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Run as this system user (needed for PostgreSQL, which refuses to run as root). */
  user?: string;
  /** The signal that asks for a clean, prompt shutdown (PostgreSQL: SIGINT, its "fast" mode). */
  stopSignal?: NodeJS.Signals;
}

/**
 * Starts a detached child in its own process group with stdout and stderr appended to `logFile`,
 * so it outlives the CLI that started it and can be stopped as a group later.
 */
export function startDetached(launch: ProcessLaunch, logFile: string): number {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const [command, args] = asUser(launch);
  const child = spawn(command, args, {
    cwd: launch.cwd,
    env: { ...process.env, ...launch.env },
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${launch.command}`);
  child.unref();
  return child.pid;
}

function asUser(launch: ProcessLaunch): [string, string[]] {
  if (launch.user === undefined || process.getuid?.() !== 0) return [launch.command, launch.args];
  return ['runuser', ['-u', launch.user, '--', launch.command, ...launch.args]];
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `signal` (SIGTERM by default) to the process group, then SIGKILL after `graceMs`. */
export async function stopProcessGroup(pid: number, graceMs = 10_000, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  signalGroup(pid, signal);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pid)) return;
    await sleep(100);
  }
  signalGroup(pid, 'SIGKILL');
  while (groupAlive(pid)) await sleep(50);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
