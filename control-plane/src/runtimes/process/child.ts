import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sleep } from '../../../../lib/wait.js';
import type { ExitStatus } from '../types.js';
import { runAs } from './system-user.js';

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

/** How the children this process started ended, by pid (others' children cannot be waited for). */
const exits = new Map<number, ExitStatus>();

/**
 * Starts a detached child in its own process group with stdout and stderr appended to `logFile`,
 * so it outlives the CLI that started it and can be stopped as a group later.
 * With REGLAB_PROCESS_REGISTRY set (the test run sets it), the pid is also recorded there, so
 * whoever owns the registry can end every group even if this process is killed.
 */
export function startDetached(launch: ProcessLaunch, logFile: string): number {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  // as another user without a wrapper process (runuser would stay beside it, holding memory)
  const user = launch.user !== undefined && process.getuid?.() === 0 ? runAs(launch.user) : undefined;
  const child = spawn(launch.command, launch.args, {
    cwd: launch.cwd,
    env: { ...process.env, ...launch.env, ...user?.env },
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  if (child.pid === undefined) throw new Error(`could not start ${launch.command}`);
  const pid = child.pid;
  child.on('exit', (code, signal) => exits.set(pid, { code: code ?? undefined, signal: signal ?? undefined }));
  child.unref();
  recordInRegistry(pid);
  return pid;
}

/**
 * With its start time (/proc/PID/stat field 22), so that a pid the system has since given to another process is not
 * taken for it.
 */
function recordInRegistry(pid: number): void {
  const registry = process.env.REGLAB_PROCESS_REGISTRY;
  if (registry) appendFileSync(join(registry, 'pids'), `${pid} ${startTimeOf(pid) ?? ''}\n`);
}

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function exitStatusOf(pid: number): ExitStatus | undefined {
  return exits.get(pid);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether process `pid` runs a command line holding `program` (a pid the system gave to another process does not). */
export function runsProgram(pid: number, program: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(program);
  } catch {
    return false;
  }
}

/** `signal` (SIGTERM by default) to the process group, then SIGKILL after `graceMs`. */
export async function stopProcessGroup(
  pid: number,
  graceMs = 10_000,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  signalGroup(pid, signal);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!groupAlive(pid)) return;
    await sleep(100);
  }
  await killProcessGroup(pid);
}

/** SIGKILL to the whole group, and wait until it is gone. */
export async function killProcessGroup(pid: number): Promise<void> {
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
