import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { productionModules } from '../../control-plane/src/images/modules.js';

const topMost = (folders: string[]) =>
  [...folders]
    .sort()
    .filter((path, index, all) => !all.slice(0, index).some((parent) => path.startsWith(`${parent}/`)));

describe('productionModules', () => {
  let root: string | undefined;
  afterEach(() => root && rmSync(root, { recursive: true, force: true }));

  it("lists this project's production packages as `npm ls --omit=dev` does", async () => {
    const project = resolve(__dirname, '../..');
    const listing = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: project,
      encoding: 'utf8',
    });
    const npm = topMost(
      listing
        .split('\n')
        .map((line) => relative(project, line.trim()))
        .filter((path) => path.startsWith('node_modules/')),
    );
    expect((await productionModules(project)).entries).toEqual(npm);
  });

  it("reads npm's install record: dev packages left out, a nested one with its parent, and not once a package changed after it", async () => {
    root = mkdtempSync(join(tmpdir(), 'reglab-modules-'));
    writeFileSync(join(root, 'package-lock.json'), '{}');
    for (const folder of ['a', 'a/node_modules/nested', '@scope/b', 'dev-only'])
      mkdirSync(join(root, 'node_modules', folder), { recursive: true });
    const record = join(root, 'node_modules', '.package-lock.json');
    writeFileSync(
      record,
      JSON.stringify({
        packages: {
          '': {},
          'node_modules/a': {},
          'node_modules/a/node_modules/nested': {},
          'node_modules/@scope/b': { peer: true },
          'node_modules/dev-only': { dev: true },
        },
      }),
    );
    const later = new Date(Date.now() + 60_000);
    utimesSync(record, later, later);
    expect((await productionModules(root)).entries).toEqual(['node_modules/@scope/b', 'node_modules/a']);

    // a package folder newer than the record: npm is asked instead, and knows nothing of dev-only
    // but that it is there (no package.json says it is for development)
    utimesSync(
      join(root, 'node_modules', '@scope', 'b'),
      new Date(Date.now() + 120_000),
      new Date(Date.now() + 120_000),
    );
    expect((await productionModules(root)).entries).toContain('node_modules/dev-only');
  });
});
