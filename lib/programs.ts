import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from './project-root.js';

/**
 * The project's programs that run as processes (or threads) of their own, by the name of their
 * bundle, with their entry point as the sources import it (a .js path that names a .ts file).
 * `npm run build` bundles each from its TypeScript source into dist/bundle/NAME.js
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

/** The TypeScript source of `entry` (services/faucet/src/main.js: services/faucet/src/main.ts). */
export function sourceOf(entry: string): string {
  return entry.replace(/\.js$/, '.ts');
}

/** The bundle of `entry` (like services/faucet/src/main.js), relative to dist/; undefined when it has none. */
export function bundleOf(entry: string): string | undefined {
  const name = Object.keys(BUNDLED_PROGRAMS).find((key) => BUNDLED_PROGRAMS[key] === entry);
  return name === undefined ? undefined : `${BUNDLE_DIR}/${name}.js`;
}

/** The bundle Node runs for `entry` from the build folder `dist`; undefined when it was not built there. */
export function builtProgram(dist: string, entry: string): string | undefined {
  const bundle = bundleOf(entry);
  const built = bundle === undefined ? undefined : join(dist, bundle);
  return built !== undefined && existsSync(built) ? built : undefined;
}

/** Node's arguments that run `entry` of the project: its bundle when built, otherwise its TypeScript source through tsx. */
export function programArguments(entry: string): string[] {
  const root = projectRoot();
  const built = builtProgram(join(root, 'dist'), entry);
  if (built !== undefined) return [built];
  const tsxLoader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return ['--import', tsxLoader, join(root, sourceOf(entry))];
}
