// Bundles each of the project's programs (lib/programs.ts) from its TypeScript sources into
// DIST/bundle: one file per program, and chunks for the code they share or load lazily. esbuild
// strips the types without checking them (`npm test` and `npm run typecheck` type-check with tsc).
//   node scripts/bundle.mjs [DIST] [--no-source-maps]   (default: the project's dist/, what `npm run build` makes)
// Packages with native code or files of their own to load stay in node_modules; the bundle finds
// them there as the compiled tree did, in the project and in the services image alike (both keep
// dist/ and node_modules/ side by side).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const options = process.argv.slice(2);
const distGiven = options.find((option) => !option.startsWith('--'));
const dist = resolve(distGiven ?? join(root, 'dist'));
const sourceMaps = !options.includes('--no-source-maps');

/**
 * What the last build of DIST was made from: every file esbuild read (sources and packages) with the
 * SHA-256 of its content, this script's included, and the options. A build whose files and options
 * are all the same would write the same bundles: `npm test` after the set-up's build, or twice in a
 * row, skips it. A file no input imports cannot change a bundle until an input changes to import it.
 * Kept for the project's dist/ only: a DIST given is bundled anew (the services image's stage, once
 * per sources pin), and holds the bundles alone.
 */
const INPUTS_RECORD = distGiven === undefined ? join(dist, '.bundle-inputs.json') : undefined;
const digestOf = async (file) => {
  try {
    return createHash('sha256')
      .update(await readFile(join(root, file)))
      .digest('hex');
  } catch {
    return undefined; // gone
  }
};
async function upToDate() {
  if (INPUTS_RECORD === undefined || !existsSync(INPUTS_RECORD)) return false;
  const record = JSON.parse(await readFile(INPUTS_RECORD, 'utf8'));
  if (record.sourceMaps !== sourceMaps || !record.outputs.every((output) => existsSync(join(root, output))))
    return false;
  const digests = await Promise.all(Object.keys(record.inputs).map(digestOf));
  return Object.values(record.inputs).every((digest, index) => digest === digests[index]);
}
if (await upToDate()) {
  console.log(`bundles in ${dist} up to date: no file they are made from changed`);
  process.exit(0);
}

const { build } = await import('esbuild');
const { tsImport } = await import('tsx/esm/api');
/** A module of the project, from its TypeScript source. */
const source = (file) => tsImport(join(root, file), import.meta.url);
const { BUNDLED_PROGRAMS, BUNDLE_DIR, sourceOf } = await source('lib/programs.ts');
const outdir = join(dist, BUNDLE_DIR);

/** Loaded at run time from node_modules: native addons, WebAssembly and data files beside the code. */
const EXTERNAL = [
  'classic-level',
  '@rgb-tools/*',
  '@electric-sql/pglite',
  'tiny-secp256k1',
  'pg-native',
  'cpu-features',
  'bufferutil',
  'utf-8-validate',
  '*.node',
];

/** From an output file (DIST/bundle/*.js) to the folder that holds dist/ and node_modules/. */
const TO_ROOT = '../..';

/**
 * CommonJS code of node_modules that finds files beside itself (__dirname, __filename: a package's
 * static files, its protos, its package.json) gets them as where it lies in node_modules, relative
 * to the output file it ends up in, which the banner resolves.
 */
const ownLocation = {
  name: 'own-location',
  setup(bundler) {
    bundler.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async ({ path }) => {
      const contents = await readFile(path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(contents)) return undefined;
      const at = (file) => JSON.stringify(`${TO_ROOT}/${relative(root, file)}`);
      return {
        contents: `var __filename = __bundledPath(${at(path)}), __dirname = __bundledPath(${at(dirname(path))});\n${contents}`,
        loader: 'js',
      };
    });
  },
};

/**
 * A chunk a running process has yet to import (the control plane loads its docker runtime, its job
 * queues on first use) must outlive a rebuild: chunks are named by their content, so a rebuild
 * writes new ones beside them, and those of earlier builds go once they are a week old.
 */
const EARLIER_BUILDS_KEPT_MS = 7 * 24 * 3600 * 1000;

async function removeEarlierBuilds(outputs) {
  const current = new Set(Object.keys(outputs).map((path) => resolve(root, path)));
  for (const name of await readdir(outdir)) {
    const path = join(outdir, name);
    if (!current.has(path) && Date.now() - (await stat(path)).mtimeMs > EARLIER_BUILDS_KEPT_MS)
      await rm(path, { force: true });
  }
}

/** What both kinds of bundle share: node's code, externals, file locations, minified but for names. */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  absWorkingDir: root,
  nodePaths: [join(root, 'node_modules')],
  external: EXTERNAL,
  plugins: [ownLocation],
  // identifiers kept, so that stack traces name their functions; `node --enable-source-maps` maps them to the sources
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: sourceMaps ? 'linked' : false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};

/**
 * The files of ln-service's `lightning` package the project loads one by one (lib/lightning/lnd/files.ts)
 * in one CommonJS file beside the programs, each run on its first require as from node_modules
 * (lib/lightning/lnd/package.ts finds it): { [file as lightningRequire() is given it]: () => its exports }.
 */
async function bundleLightningFiles() {
  const { lightningFiles } = await source('lib/lightning/lnd/files.ts');
  // as lib/lightning/lnd/package.ts resolves it, from the project's node_modules
  const lightningDir = dirname(
    createRequire(createRequire(join(root, 'package.json')).resolve('ln-service')).resolve('lightning/package.json'),
  );
  const fromLightning = createRequire(join(lightningDir, 'package.json'));
  const entries = lightningFiles().map(
    (file) => `  ${JSON.stringify(file)}: () => require(${JSON.stringify(fromLightning.resolve(file))}),`,
  );
  return build({
    ...common,
    stdin: {
      contents: `module.exports = {\n${entries.join('\n')}\n};\n`,
      resolveDir: lightningDir,
      sourcefile: 'lightning-files.cjs',
      loader: 'js',
    },
    outfile: join(outdir, 'lightning.cjs'),
    format: 'cjs',
    banner: { js: "const __bundledPath = (path) => require('node:path').resolve(__dirname, path);" },
  });
}

const started = performance.now();
const [programs, lightning] = await Promise.all([
  build({
    ...common,
    entryPoints: Object.entries(BUNDLED_PROGRAMS).map(([name, entry]) => ({
      in: join(root, sourceOf(entry)),
      out: name,
    })),
    outdir,
    splitting: true,
    format: 'esm',
    // a package's ES module build first: the names of a CommonJS one imported with import() are not known to the bundle
    mainFields: ['module', 'main'],
    banner: {
      js: [
        "import { createRequire as __createRequire } from 'node:module';",
        "import { fileURLToPath as __fileURLToPath } from 'node:url';",
        'const require = __createRequire(import.meta.url);',
        'const __bundledPath = (path) => __fileURLToPath(new URL(path, import.meta.url));',
      ].join(' '),
    },
  }),
  bundleLightningFiles(),
]);
const outputs = { ...programs.metafile.outputs, ...lightning.metafile.outputs };
await removeEarlierBuilds(outputs);
if (INPUTS_RECORD !== undefined) await recordInputs([programs.metafile, lightning.metafile], Object.keys(outputs));
console.log(
  `bundled ${Object.keys(BUNDLED_PROGRAMS).length} programs and the lightning package's files into ${outdir} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/** Writes INPUTS_RECORD: the files the builds read (their metafiles' inputs), with their digests, and the outputs. */
async function recordInputs(metafiles, outputs) {
  const inputs = [
    ...new Set([
      relative(root, fileURLToPath(import.meta.url)),
      ...metafiles.flatMap((meta) => Object.keys(meta.inputs)),
    ]),
  ].filter((input) => existsSync(join(root, input)));
  const digests = await Promise.all(inputs.map(digestOf));
  await writeFile(
    INPUTS_RECORD,
    JSON.stringify({
      sourceMaps,
      outputs,
      inputs: Object.fromEntries(inputs.map((input, index) => [input, digests[index]])),
    }),
  );
}
