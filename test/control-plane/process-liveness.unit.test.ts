// Processes that have ended but that their parent has not reaped (zombies): what the services a
// control plane re-attached to become when they die, if their new parent reaps late or never. They
// still answer kill(pid, 0), and must be seen dead all the same.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isRunning, startDetached } from '../../control-plane/src/runtimes/process/child.js';
import { ProcessRuntime } from '../../control-plane/src/runtimes/process/runtime.js';
import { waitFor } from '../../lib/wait.js';

/** The state letter of /proc/PID/stat. */
const stateOf = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

/**
 * Runs `script` under a parent that never reaps its children (`sleep` exec'd in the shell's
 * place) and answers the pid the script prints, once that process has become a zombie.
 */
async function zombieOf(script: string, parents: ChildProcess[]): Promise<number> {
  const parent = spawn('sh', ['-c', `${script}\nexec sleep 60`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  parents.push(parent);
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim().split('\n')[0])));
    parent.once('error', reject);
  });
  await waitFor(async () => stateOf(pid) === 'Z', { timeoutMs: 10_000, intervalMs: 20, what: `${pid} to end` });
  return pid;
}

describe('liveness of processes that ended but are not reaped', () => {
  const parents: ChildProcess[] = [];
  afterEach(() => {
    for (const parent of parents.splice(0)) process.kill(-parent.pid!, 'SIGKILL');
  });

  it('takes a zombie for dead, although it still answers signal 0', async () => {
    const pid = await zombieOf('sleep 0.1 & echo $!', parents);
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(isRunning(pid)).toBe(false);
    expect(await new ProcessRuntime().isAlive({ runtime: 'process', pid })).toBe(false);
  });

  it('names how a service it started ended as soon as it is seen dead (before Node has reaped it)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'reglab-liveness-'));
    try {
      const runtime = new ProcessRuntime();
      const pid = startDetached({ command: 'sleep', args: ['60'] }, join(folder, 'sleep.log'));
      await runtime.kill({ runtime: 'process', pid });
      expect(await runtime.isAlive({ runtime: 'process', pid })).toBe(false);
      expect(await runtime.exitStatus({ runtime: 'process', pid })).toEqual({ code: undefined, signal: 'SIGKILL' });
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('ends the process group of a service whose only process left is a zombie (its kill returns)', async () => {
    // a group of its own whose leader ends at once and is never reaped
    const pid = await zombieOf(`setsid sh -c 'echo $$; exec sleep 0.1' &`, parents);
    expect(() => process.kill(-pid, 0)).not.toThrow();
    await new ProcessRuntime().kill({ runtime: 'process', pid });
    expect(stateOf(pid)).toBe('Z');
  }, 20_000);
});
