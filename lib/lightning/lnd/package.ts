import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const fromPackage = createRequire(
  createRequire(createRequire(import.meta.url).resolve('ln-service')).resolve('lightning'),
);

/** The folder of ln-service's `lightning` package (the package ln-service re-exports). */
export const lightningDir = dirname(fromPackage.resolve('./package.json'));

/**
 * The bundled program this code is part of has, beside it, the files of `lightning` it loads
 * (lib/lightning/lnd/files.ts) in one file, which scripts/bundle.mjs makes: their ~440 files, resolved and
 * compiled one by one, cost each process that talks to lnd several times the CPU (bench:snapshot).
 */
const BUNDLED_FILES = fileURLToPath(new URL('./lightning.cjs', import.meta.url));
let bundled: Record<string, () => unknown> | undefined;

/**
 * require() from the `lightning` package's folder, for the files of it loaded one by one (connection.ts,
 * methods.ts) instead of through its index, which loads all: from the bundled file when there is
 * one and it holds `file`, otherwise from node_modules.
 */
export function lightningRequire(file: string): unknown {
  bundled ??= existsSync(BUNDLED_FILES)
    ? (createRequire(import.meta.url)(BUNDLED_FILES) as Record<string, () => unknown>)
    : {};
  const load = bundled[file];
  return load ? load() : fromPackage(file);
}
