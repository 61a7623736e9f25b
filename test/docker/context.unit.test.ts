// An image's build context as GNU tar makes it from several folders: entries renamed (a file, or a
// folder with everything in it) and paths left out, as the services image takes rgb-lib's addon apart
// from the rest of node_modules.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { contextTar } from '../../control-plane/src/images/context.js';

describe('a build context', () => {
  const root = mkdtempSync(join(tmpdir(), 'reglab-context-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names renamed entries and their contents by their new names, and leaves out excluded paths', async () => {
    const addon = join(root, 'node_modules', 'addon');
    mkdirSync(join(addon, 'build', 'Release'), { recursive: true });
    writeFileSync(join(addon, 'index.js'), 'module.exports = 1;');
    writeFileSync(join(addon, 'build', 'Release', 'addon.node'), 'binary');
    writeFileSync(join(root, 'node-v20'), 'node');

    const tar = await buffer(
      contextTar([
        { dir: root, entries: ['node_modules'], exclude: ['node_modules/addon/build'] },
        { dir: addon, entries: ['build'], rename: { build: 'addon-build' } },
        { dir: root, entries: ['node-v20'], rename: { 'node-v20': 'node' } },
      ]),
    );
    const listed = spawnSync('tar', ['-t'], { input: tar, encoding: 'utf8' }).stdout.split('\n').filter(Boolean);

    expect(listed).toContain('node_modules/addon/index.js');
    expect(listed.filter((name) => name.startsWith('node_modules/addon/build'))).toEqual([]);
    expect(listed).toContain('addon-build/Release/addon.node');
    expect(listed).toContain('node');
    expect(listed.filter((name) => name.startsWith('build'))).toEqual([]);
  });
});
