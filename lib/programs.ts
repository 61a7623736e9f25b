import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './project-root.js';

/**
 * The project's programs that run as processes (or threads) of their own, by the name of their
 * bundle, with their entry point under dist/. `npm run build` bundles each into dist/bundle/NAME.js
 * (scripts/bundle.mjs): Node 20 loads an ES module graph file by file, and loading each service's few
 * hundred files was about half of its start, paid by every process of a lab's bring-up on the same
 * two cores (bench:snapshot).
 */
export const BUNDLED_PROGRAMS: Readonly<Record<string, string>> = {
  cli: 'control-plane/src/cli/main.js',
  'chain-adapter': 'services/chain-adapter/src/main.js',
  faucet: 'services/faucet/src/main.js',
  indexer: 'services/indexer/src/main.js',
  'rgb-node': 'services/rgb-node/src/main.js',
  'rgb-proxy': 'services/rgb-proxy/src/main.js',
  'wallet-server': 'services/wallet-server/src/main.js',
  // next to the chunks that start it (lib/rgb/rgb-lib-thread.ts looks for it beside itself)
  'rgb-lib-worker': 'lib/rgb/rgb-lib-worker.js',
};

export const BUNDLE_DIR = 'bundle';

/**
 * The bundle of `entry` (a path under dist/, like services/faucet/src/main.js), relative to dist/; undefined when it
 * has none.
 */
export function bundleOf(entry: string): string | undefined {
  const name = Object.keys(BUNDLED_PROGRAMS).find((key) => BUNDLED_PROGRAMS[key] === entry);
  return name === undefined ? undefined : `${BUNDLE_DIR}/${name}.js`;
}

/**
 * The file Node runs for `entry` from the compiled tree `dist`: its bundle when one was made from
 * the current compile (tsc rewrites every file it emits, so a bundle older than the compiled entry
 * comes from an earlier build), otherwise tsc's output; undefined when `entry` is not compiled.
 */
export function compiledProgram(dist: string, entry: string): string | undefined {
  const compiled = join(dist, entry);
  if (!existsSync(compiled)) return undefined;
  const bundle = bundleOf(entry);
  const bundled = bundle === undefined ? undefined : join(dist, bundle);
  if (bundled !== undefined && existsSync(bundled) && statSync(bundled).mtimeMs >= statSync(compiled).mtimeMs)
    return bundled;
  return compiled;
}

/**
 * Node's arguments that run `entry` of the project: compiled when built, otherwise its TypeScript source through tsx.
 */
export function programArguments(entry: string): string[] {
  const root = projectRoot();
  const compiled = compiledProgram(join(root, 'dist'), entry);
  if (compiled !== undefined) return [compiled];
  const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return ['--import', tsxLoader, join(root, entry.replace(/\.js$/, '.ts'))];
}
