import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * Points REGLAB_CACHE_DIR (the machine's cache of reglab builds) at a new temporary folder for the
 * enclosing describe block, then back and the folder removed; returns the folder.
 */
export function temporaryCacheDir(prefix: string): string {
  const cache = mkdtempSync(join(tmpdir(), prefix));
  const saved = process.env.REGLAB_CACHE_DIR;
  beforeAll(() => {
    process.env.REGLAB_CACHE_DIR = cache;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.REGLAB_CACHE_DIR;
    else process.env.REGLAB_CACHE_DIR = saved;
    rmSync(cache, { recursive: true, force: true });
  });
  return cache;
}
