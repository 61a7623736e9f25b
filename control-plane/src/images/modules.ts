import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { ContextPart } from './types.js';

/**
 * The production packages of the project's node_modules (npm's own resolution, without dev
 * dependencies), as top-most folders only: a nested package travels with its parent.
 */
export async function productionModules(root: string): Promise<ContextPart> {
  const folders = (installedByNpm(root) ?? (await listedByNpm(root))).sort();
  const topMost = folders.filter(
    (path, index) => !folders.slice(0, index).some((parent) => path.startsWith(`${parent}/`)),
  );
  if (topMost.length === 0)
    throw new Error(`no production packages found in ${root}/node_modules: run \`npm ci\` first`);
  const lock = readFileSync(`${root}/package-lock.json`);
  const fingerprint = createHash('sha256').update(lock).update(topMost.join('\n')).digest('hex');
  return { dir: root, entries: topMost, fingerprint };
}

/**
 * What npm recorded it installed (node_modules/.package-lock.json, written by every install), but
 * dev packages; undefined when there is no such record or a package folder changed after it, which
 * is when npm itself stops trusting it. It gives the list of `npm ls --omit=dev` without starting npm,
 * which is slow to start and would be paid at every image check.
 */
function installedByNpm(root: string): string[] | undefined {
  const modules = join(root, 'node_modules');
  const record = join(modules, '.package-lock.json');
  if (!existsSync(record)) return undefined;
  const recorded = statSync(record).mtimeMs;
  const packageFolders = readdirSync(modules)
    .filter((entry) => !entry.startsWith('.'))
    .flatMap((entry) =>
      entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(entry, name)) : [entry],
    );
  if (packageFolders.some((folder) => statSync(join(modules, folder)).mtimeMs > recorded)) return undefined;
  const { packages } = JSON.parse(readFileSync(record, 'utf8')) as {
    packages: Record<string, { dev?: boolean; extraneous?: boolean }>;
  };
  return Object.entries(packages)
    .filter(([path, info]) => path.startsWith('node_modules/') && !info.dev && !info.extraneous)
    .map(([path]) => path);
}

/** `npm ls`, run without blocking the process (it takes seconds): a control plane answers on meanwhile. */
async function listedByNpm(root: string): Promise<string[]> {
  let listing: string;
  try {
    listing = (
      await promisify(execFile)('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 << 20,
      })
    ).stdout;
  } catch (error) {
    // npm ls exits non-zero on extraneous or invalid packages but still prints the tree
    listing = (error as { stdout?: string }).stdout ?? '';
  }
  return listing
    .split('\n')
    .map((line) => relative(root, line.trim()))
    .filter((path) => path.startsWith('node_modules/'));
}
