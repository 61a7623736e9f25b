// Which file Node runs for a program of the project: its bundle when `npm run build` made one,
// otherwise its TypeScript source through tsx.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUNDLED_PROGRAMS, bundleOf, builtProgram, programArguments, sourceOf } from '../../lib/programs.js';
import { projectRoot } from '../../lib/project-root.js';

describe("a program's built file", () => {
  let dist: string;
  const entry = BUNDLED_PROGRAMS['wallet-server']!;

  beforeEach(() => (dist = mkdtempSync(join(tmpdir(), 'reglab-dist-'))));
  afterEach(() => rmSync(dist, { recursive: true, force: true }));

  it('is its bundle once built', () => {
    mkdirSync(join(dist, 'bundle'));
    writeFileSync(join(dist, 'bundle', 'wallet-server.js'), '');
    expect(builtProgram(dist, entry)).toBe(join(dist, 'bundle', 'wallet-server.js'));
  });

  it('is none before the build, nor for a program that has no bundle', () => {
    expect(builtProgram(dist, entry)).toBeUndefined();
    expect(bundleOf('services/other/src/main.js')).toBeUndefined();
    expect(builtProgram(dist, 'services/other/src/main.js')).toBeUndefined();
  });

  it('is, unbuilt, the TypeScript source run through tsx', () => {
    expect(sourceOf(entry)).toBe('services/wallet-server/src/main.ts');
    const args = programArguments('services/other/src/main.js');
    expect(args).toEqual([
      '--import',
      expect.stringMatching(/tsx\/dist\/loader\.mjs$/),
      join(projectRoot(), 'services/other/src/main.ts'),
    ]);
  });
});
