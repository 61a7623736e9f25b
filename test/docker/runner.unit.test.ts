// The container runner's loop, run here by the machine's /bin/sh (dash on Debian, as in the images)
// with its data folder in a temp folder: the signal races of hold, resume and stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CONTAINER_DATA_DIR } from '../../control-plane/src/runtimes/docker/placement.js';
import { HELD_MARKER, runnerEntrypoint } from '../../control-plane/src/runtimes/docker/runner.js';
import { waitFor } from '../../lib/wait.js';

const folder = mkdtempSync(join(tmpdir(), 'reglab-runner-'));
const running = new Set<ChildProcess>();

/** The runner over a service that prints "started" and sleeps, in a process group of its own. */
function runner() {
  const { Entrypoint, env } = runnerEntrypoint(['sh', '-c', 'echo started; exec sleep 1000'], 'SIGKILL');
  const [name, ...script] = env.split('=');
  const child = spawn(Entrypoint[0], Entrypoint.slice(1), {
    detached: true,
    env: { ...process.env, [name]: script.join('=').replaceAll(`${CONTAINER_DATA_DIR}/`, `${folder}/`) },
  });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const until = (test: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (test() ? resolve() : setTimeout(check, 2));
      check();
    });
  return {
    child,
    exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
    starts: () => stdout.split('started').length - 1,
    untilStarted: (times: number) => until(() => stdout.split('started').length - 1 >= times),
    /** The status the runner reported for the held service. */
    held: () => until(() => /status \d+/.test(stderr)).then(() => Number(/status (\d+)/.exec(stderr)![1])),
  };
}

/** The stat line of a process, or '' when it is gone. */
const statOf = (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
};

/**
 * Whether a live process (not a zombie left to be reaped) of the runner's group is left: the service, or the sleep that
 * waits for resume.
 */
const groupLeft = (child: ChildProcess) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .some((pid) => {
      const stat = statOf(pid);
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return stat !== '' && Number(group) === child.pid && state !== 'Z';
    });

afterEach(() => {
  for (const child of running) if (groupLeft(child)) process.kill(-child.pid!, 'SIGKILL');
  running.clear();
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the container runner', () => {
  it('ends a held service with its discard signal, whenever the hold comes, and a stop leaves nothing behind', async () => {
    const statuses = new Map<number, number>();
    for (let round = 0; round < 60; round++) {
      const run = runner();
      await run.untilStarted(1);
      run.child.kill('SIGUSR1');
      const status = await run.held();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      run.child.kill('SIGTERM');
      await run.exited;
      // a killed process ends a moment after kill() returns: a sleep left running would never end
      await waitFor(async () => !groupLeft(run.child), {
        timeoutMs: 2_000,
        intervalMs: 5,
        what: 'the runner to leave no process behind',
      });
    }
    expect(Object.fromEntries(statuses)).toEqual({ 137: 60 });
  });

  it('writes the held marker, runs the service again on resume, and ends with the service on a stop', async () => {
    const run = runner();
    await run.untilStarted(1);
    run.child.kill('SIGUSR1');
    await run.held();
    // the runner reports the hold before it writes the marker, the runtime waits for the marker
    await waitFor(async () => existsSync(join(folder, HELD_MARKER)), {
      timeoutMs: 2_000,
      intervalMs: 5,
      what: 'the held marker',
    });
    run.child.kill('SIGUSR2');
    await run.untilStarted(2);
    expect(existsSync(join(folder, HELD_MARKER))).toBe(false);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    expect(run.starts()).toBe(2);
  });
});
