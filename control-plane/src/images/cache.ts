import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The machine's cache of reglab builds (REGLAB_CACHE_DIR, or ~/.cache/reglab): rootfs, staged services, the build lock.
 */
export function reglabCacheDir(): string {
  return process.env.REGLAB_CACHE_DIR ?? join(homedir(), '.cache', 'reglab');
}
