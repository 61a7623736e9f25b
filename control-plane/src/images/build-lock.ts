// One image build at a time on this machine. Control planes, tests and benches share the engine's
// tags and the services stage folder: two builds of one tag at once would leave one of them with
// the other's image, and two compilations into the stage folder would mix their files.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../../../lib/wait.js';
import { reglabCacheDir } from './cache.js';

/** A build may hold the lock this long (the Debian base and the services image on a loaded machine). */
const WAIT_MS = 20 * 60_000;

/** A lock folder without its holder's pid after this long was left by a holder that died making it. */
const OWNERLESS_MS = 10_000;

const lockDir = () => join(reglabCacheDir(), 'image-build.lock');

/** Runs `work` holding the machine's image-build lock, waiting for another holder to finish first. */
export async function withBuildLock<T>(onProgress: (line: string) => void, work: () => Promise<T>): Promise<T> {
  let told = false;
  await waitFor(
    async () => {
      const holder = tryLock();
      if (holder === undefined) return true;
      if (!told) onProgress(`waiting for another image build to finish (pid ${holder || 'unknown'})`);
      told = true;
      return false;
    },
    { timeoutMs: WAIT_MS, intervalMs: 500, what: `the image build lock ${lockDir()}` },
  );
  try {
    return await work();
  } finally {
    rmSync(lockDir(), { recursive: true, force: true });
  }
}

/** Takes the lock (mkdir is atomic) and returns undefined, or returns the pid holding it. */
function tryLock(): number | undefined {
  const dir = lockDir();
  mkdirSync(reglabCacheDir(), { recursive: true });
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'pid'), String(process.pid));
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = Number(readOwner(dir));
  if (holder > 0 ? !alive(holder) : ageMs(dir) > OWNERLESS_MS) {
    // a holder that died (a killed test run): set its lock aside in one atomic step, then try again
    const stale = `${dir}.stale-${process.pid}`;
    try {
      renameSync(dir, stale);
      rmSync(stale, { recursive: true, force: true });
    } catch {
      // another waiter set it aside first
    }
    return tryLock();
  }
  return holder;
}

function readOwner(dir: string): string {
  try {
    return readFileSync(join(dir, 'pid'), 'utf8');
  } catch {
    return ''; // made a moment ago, its pid not written yet (or never: its holder died in between)
  }
}

function ageMs(dir: string): number {
  try {
    return Date.now() - statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
