#!/usr/bin/env node
// The reglab CLI, from its bundle (npm run build).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../dist/bundle/cli.js', import.meta.url));
if (!existsSync(cli)) {
  console.error('reglab is not built yet: run `npm run build` (or `npm run setup`) in the reglab folder');
  process.exit(1);
}
await import(pathToFileURL(cli).href);
