#!/usr/bin/env node
// The reglab CLI, from the compiled sources (npm run build).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/control-plane/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('reglab is not built yet: run `npm run build` (or `npm run setup`) in the reglab folder');
  process.exit(1);
}
await import(entry.href);
