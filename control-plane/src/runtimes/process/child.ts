import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sleep, withTimeout } from '../../../../lib/wait.js';
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

/** How the children this process started end, by pid (others' children cannot be waited for). */
const exits = new Map<number, Promise<ExitStatus>>();
/**
 * How long a child seen ended (a zombie) may take to be reaped, which is when its exit status is
 * known: at once, as Node reaps its children on SIGCHLD; the bound is for a signal that was lost.
 */
const REAP_WAIT_MS = 2_000;

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
  exits.set(
    pid,
    new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code: code ?? undefined, signal: signal ?? undefined })),
    ),
  );
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
  return statFields(pid)?.[19];
}

/**
 * The fields of /proc/PID/stat after the command's name: state (R, S, Z...), ppid, process group,
 * ... (field 3 of proc(5) is the first). Undefined without such a process (or without /proc).
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * A process that has ended but that its parent has not reaped yet (Z; X while it is being
 * reaped) still answers signal 0: one a control plane before this one started, whose new parent
 * reaps late or never, would otherwise be taken as running.
 */
function hasEnded(fields: string[] | undefined): boolean {
  return fields?.[0] === 'Z' || fields?.[0] === 'X';
}

/** How a child this process started ended, once it has (it is seen ended a moment before it is reaped). */
export async function exitStatusOf(pid: number): Promise<ExitStatus | undefined> {
  const exit = exits.get(pid);
  return exit && withTimeout(exit, REAP_WAIT_MS).catch(() => undefined);
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !hasEnded(statFields(pid));
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

/** Whether a process of the group still runs (its ended processes not yet reaped do not count). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!existsSync('/proc/self/stat')) return true;
  return readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    const fields = statFields(Number(entry));
    return fields?.[2] === String(pgid) && !hasEnded(fields);
  });
}
