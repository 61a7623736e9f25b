// The machine-wide image-build lock: builds from several processes (a control plane, a test run, a
// bench) take turns, and a lock left by a process that died does not block the next build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withBuildLock } from '../../control-plane/src/images/build-lock.js';
import { waitFor } from '../../lib/wait.js';
import { temporaryCacheDir } from '../support/cache-dir.js';

describe('the image-build lock', () => {
  const cache = temporaryCacheDir('reglab-lock-');
  const lock = join(cache, 'image-build.lock');

  it('makes a second build wait, saying for whom, until the first has finished', async () => {
    const order: string[] = [];
    let release!: () => void;
    const first = withBuildLock(
      () => undefined,
      async () => {
        order.push('first starts');
        await new Promise<void>((resolve) => (release = resolve));
        order.push('first ends');
      },
    );
    await waitFor(async () => order.length === 1, {
      timeoutMs: 5_000,
      intervalMs: 20,
      what: 'the first build to hold the lock',
    });
    const lines: string[] = [];
    const second = withBuildLock(
      (line) => lines.push(line),
      async () => order.push('second runs'),
    );
    await waitFor(async () => lines.length > 0, { timeoutMs: 5_000, intervalMs: 20, what: 'the second build to wait' });
    expect(lines).toEqual([`waiting for another image build to finish (pid ${process.pid})`]);
    expect(order).toEqual(['first starts']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first starts', 'first ends', 'second runs']);
    expect(existsSync(lock)).toBe(false);
  });

  it('releases the lock when the build fails', async () => {
    await expect(
      withBuildLock(
        () => undefined,
        async () => {
          throw new Error('the build broke');
        },
      ),
    ).rejects.toThrow('the build broke');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose holder died', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(dead));
    const lines: string[] = [];
    expect(
      await withBuildLock(
        (line) => lines.push(line),
        async () => 'built',
      ),
    ).toBe('built');
    expect(lines).toEqual([]);
    expect(existsSync(lock)).toBe(false);
  });
});
