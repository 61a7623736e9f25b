import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { ContextPart } from './types.js';

/**
 * The production packages of the project's node_modules (npm's own resolution, without dev
 * dependencies), as top-most folders only: a nested package travels with its parent.
 */
export function productionModules(root: string): ContextPart {
  let listing: string;
  try {
    listing = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    // npm ls exits non-zero on extraneous or invalid packages but still prints the tree
    listing = (error as { stdout?: string }).stdout ?? '';
  }
  const folders = listing
    .split('\n')
    .map((line) => relative(root, line.trim()))
    .filter((path) => path.startsWith('node_modules/'))
    .sort();
  const topMost = folders.filter((path, index) => !folders.slice(0, index).some((parent) => path.startsWith(`${parent}/`)));
  if (topMost.length === 0) throw new Error(`no production packages found in ${root}/node_modules: run \`npm ci\` first`);
  const lock = readFileSync(`${root}/package-lock.json`);
  const fingerprint = createHash('sha256').update(lock).update(topMost.join('\n')).digest('hex');
  return { dir: root, entries: topMost, fingerprint };
}
