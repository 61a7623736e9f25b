// A test run that is interrupted leaves nothing behind: a vitest run of its own starts a lab
// (btcd, lnd), Postgres and Redis, gets SIGINT, and afterwards none of those processes is left.
// The registry folder disappears with the run, so the processes are found before the interrupt.
// Its own test run, which it interrupts.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { marked } from '../support/reaper.mjs';

/** The processes of a run (marked, or recorded as it started them), by pid, with their program names. */
function runProcesses(registry: string): Map<number, string> {
  const recorded = existsSync(join(registry, 'pids'))
    ? readFileSync(join(registry, 'pids'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => Number(line.split(' ')[0]))
    : [];
  const found = new Map<number, string>();
  for (const pid of new Set([...marked(registry, true), ...recorded])) {
    try {
      const program = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0];
      found.set(pid, program.split('/').at(-1)!.split(' ')[0]);
    } catch {
      // the process has ended
    }
  }
  return found;
}

describe('an interrupted test run', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-interrupt-'));
  const ready = join(dir, 'ready');
  let run: ChildProcess | undefined;

  afterAll(() => {
    if (run?.exitCode === null) run.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no btcd, lnd, postgres or redis running', async () => {
    run = spawn(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/cleanup/fixture.config.ts'],
      {
        env: { ...process.env, REGLAB_FIXTURE_READY: ready },
        stdio: 'ignore',
      },
    );
    await waitFor(async () => existsSync(ready), {
      timeoutMs: 180_000,
      intervalMs: 250,
      what: 'the fixture run to have its lab up',
    });
    const registry = readFileSync(ready, 'utf8');
    const before = runProcesses(registry);
    expect([...before.values()]).toEqual(expect.arrayContaining(['btcd', 'lnd', 'postgres', 'redis-server']));

    const exited = new Promise((resolve) => run!.once('exit', resolve));
    run.kill('SIGINT');
    await exited;
    const left = await waitFor(
      async () => {
        const still = [...before].filter(([pid]) => existsSync(`/proc/${pid}`));
        return still.length === 0 ? still : false;
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'every process of the interrupted run to end' },
    );
    expect(left).toEqual([]);
  }, 300_000);
});
