import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { reglabCacheDir } from './cache.js';
import type { ContextPart } from './types.js';
import { productionModules } from './modules.js';
import { hashTree } from './pin.js';

/** Where the services image's bundled copy of the project is staged (never the repo's dist/). */
export function servicesStageDir(): string {
  return join(reglabCacheDir(), 'services-build');
}

/**
 * Folders of static files the programs read from the project root: the services' pages
 * (services/<name>/public) and the control plane's dashboard (the control plane inside a cluster
 * runs this image), with the CLI's launcher (`reglab` in the image).
 */
const assetFolders = (root: string) => [
  ...readdirSync(join(root, 'services'))
    .filter((service) => existsSync(join(root, 'services', service, 'public')))
    .map((service) => join('services', service, 'public')),
  DASHBOARD_FOLDER,
  'bin',
];
const DASHBOARD_FOLDER = join('control-plane', 'src', 'dashboard', 'ui');

/** Bumped when the stage's layout changes, so an older stage is not reused. */
const STAGE_LAYOUT = 'bundle+services-public+dashboard+bin';

/**
 * The hash of everything the bundled project is made from (not bench/, which no program of the
 * image imports, and where each bench run writes its results).
 */
export function sourcesPin(root: string): string {
  const hash = createHash('sha256').update(STAGE_LAYOUT);
  for (const file of ['tsconfig.json', 'package.json']) hash.update(readFileSync(join(root, file)));
  for (const folder of ['lib', 'control-plane/src', 'scenarios/src', 'bin'])
    if (existsSync(join(root, folder))) hashTree(hash, join(root, folder), folder);
  for (const service of readdirSync(join(root, 'services'))) {
    for (const sub of ['src', 'public']) {
      const folder = join('services', service, sub);
      if (existsSync(join(root, folder))) hashTree(hash, join(root, folder), folder);
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** A Node script's exit status and output, run without blocking the process: a control plane answers on meanwhile. */
function runNode(root: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** Bundles the programs from the sources into `dist` (scripts/bundle.mjs), which the image runs. */
async function bundle(root: string, dist: string): Promise<void> {
  const bundler = await runNode(root, [join(root, 'scripts', 'bundle.mjs'), dist, '--no-source-maps']);
  if (bundler.status !== 0) throw new Error(`bundling the project for the services image failed:\n${bundler.output}`);
}

/**
 * Bundles the project into the stage folder (once per sources pin) with its static assets: the
 * services image runs this, so the repo's own dist/ (which the process runtime runs) is left alone.
 */
export async function stageServices(
  root: string,
  onProgress: (line: string) => void,
): Promise<{ dir: string; pin: string }> {
  const dir = servicesStageDir();
  const pin = sourcesPin(root);
  const stamp = join(dir, '.pin');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === pin) return { dir, pin };
  onProgress(`bundling the project for the services image into ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'services'), { recursive: true });
  await bundle(root, join(dir, 'dist'));
  for (const folder of assetFolders(root)) cpSync(join(root, folder), join(dir, folder), { recursive: true });
  writeFileSync(stamp, pin);
  return { dir, pin };
}

/**
 * rgb-lib's addon, as the set-up builds it in each clone (node_modules/…/build): its binary names the
 * clone's folder, so it differs from one clone to the next where the rest of node_modules does not.
 */
const RGB_LIB_BUILD = join('node_modules', '@rgb-tools', 'rgb-lib-linux-x64', 'build');

/**
 * dist/, the services' public folders, the dashboard and the CLI's launcher (staged), package.json, the host's Node
 * binary and the production packages of node_modules, rgb-lib's addon apart (`rgb-lib-build`): the
 * Containerfile copies it after the rest, so that the rest, the image's largest layer, is the same
 * layer for every clone of one package-lock.json, which the engine's build cache and a cluster's
 * containerd then keep instead of copying it again.
 */
export async function servicesParts(root: string, onProgress: (line: string) => void): Promise<ContextPart[]> {
  const staged = await stageServices(root, onProgress);
  const node = realpathSync(process.execPath);
  const modules = await productionModules(root);
  return [
    { dir: staged.dir, entries: ['dist', 'services', 'control-plane', 'bin'], fingerprint: staged.pin },
    { dir: root, entries: ['package.json'] },
    { dir: dirname(node), entries: [basename(node)], rename: { [basename(node)]: 'node' } },
    { ...modules, exclude: [RGB_LIB_BUILD] },
    {
      dir: dirname(join(root, RGB_LIB_BUILD)),
      entries: ['build'],
      rename: { build: 'rgb-lib-build' },
      // the same addon in every clone of the lock, but for the folder it names
      fingerprint: `rgb-lib addon of ${modules.fingerprint}`,
    },
  ];
}
