import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder of reglab's package.json, whether running from source (tsx, vitest) or from dist/. */
export function projectRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === 'reglab') return (cached = dir);
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the reglab project folder');
    dir = parent;
  }
}
