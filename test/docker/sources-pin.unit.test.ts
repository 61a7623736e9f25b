// The services image's sources pin: what the image's programs are bundled from changes it, and
// nothing else does (a bench run writes its results under bench/, which would otherwise rebuild the
// image at the next run).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sourcesPin } from '../../control-plane/src/images/services-build.js';

describe("the services image's sources pin", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A project tree with the folders the pin reads, and a bench result. */
  const project = () => {
    const root = mkdtempSync(join(tmpdir(), 'reglab-pin-'));
    roots.push(root);
    const files: Record<string, string> = {
      'package.json': '{}',
      'tsconfig.json': '{}',
      'lib/wait.ts': 'export const a = 1;',
      'control-plane/src/main.ts': 'export const b = 1;',
      'services/faucet/src/main.ts': 'export const c = 1;',
      'bench/results/lab-up.json': '{"runs":[]}',
    };
    for (const [path, text] of Object.entries(files)) write(root, path, text);
    return root;
  };
  const write = (root: string, path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  it('stays the same when a bench records a run, and changes with a source of the bundled programs', () => {
    const root = project();
    const pin = sourcesPin(root);
    write(root, 'bench/results/lab-up.json', '{"runs":[{"figures":{}}]}');
    write(root, 'bench/lab-up.ts', 'export const bench = 1;');
    expect(sourcesPin(root)).toBe(pin);
    write(root, 'services/faucet/src/main.ts', 'export const c = 2;');
    expect(sourcesPin(root)).not.toBe(pin);
  });
});
