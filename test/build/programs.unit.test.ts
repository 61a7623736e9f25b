// Which file Node runs for a program of the project: its bundle only when it was made from the
// compiled tree as it is now, so that a `tsc` run alone never leaves the lab running older code.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUNDLED_PROGRAMS, bundleOf, compiledProgram } from '../../lib/programs.js';

describe("a program's compiled file", () => {
  let dist: string;
  const entry = BUNDLED_PROGRAMS['wallet-server']!;
  const write = (path: string, secondsAgo: number) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '');
    const at = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(path, at, at);
  };

  beforeEach(() => (dist = mkdtempSync(join(tmpdir(), 'reglab-dist-'))));
  afterEach(() => rmSync(dist, { recursive: true, force: true }));

  it('is the bundle when the bundle was made after the compile', () => {
    write(join(dist, entry), 10);
    write(join(dist, 'bundle', 'wallet-server.js'), 5);
    expect(compiledProgram(dist, entry)).toBe(join(dist, 'bundle', 'wallet-server.js'));
  });

  it("is tsc's output when the bundle is older than it (tsc ran again since) or missing", () => {
    write(join(dist, entry), 5);
    expect(compiledProgram(dist, entry)).toBe(join(dist, entry));
    write(join(dist, 'bundle', 'wallet-server.js'), 10);
    expect(compiledProgram(dist, entry)).toBe(join(dist, entry));
  });

  it('is none when the program is not compiled, bundle or not', () => {
    write(join(dist, 'bundle', 'wallet-server.js'), 5);
    expect(compiledProgram(dist, entry)).toBeUndefined();
  });

  it("is tsc's output for a program that has no bundle", () => {
    write(join(dist, 'services/other/src/main.js'), 5);
    expect(bundleOf('services/other/src/main.js')).toBeUndefined();
    expect(compiledProgram(dist, 'services/other/src/main.js')).toBe(join(dist, 'services/other/src/main.js'));
  });
});
