#!/usr/bin/env node
// The reglab CLI, from the compiled sources (npm run build): its bundle when current.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = fileURLToPath(new URL('../dist', import.meta.url));
const programs = `${dist}/lib/programs.js`;
if (!existsSync(`${dist}/control-plane/src/cli/main.js`) || !existsSync(programs)) {
  console.error(
    'reglab is not built yet, or was built by an older version: run `npm run build` (or `npm run setup`) in the reglab folder',
  );
  process.exit(1);
}
const { BUNDLED_PROGRAMS, compiledProgram } = await import(pathToFileURL(programs).href);
await import(pathToFileURL(compiledProgram(dist, BUNDLED_PROGRAMS.cli)).href);
