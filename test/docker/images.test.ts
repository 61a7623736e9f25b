import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../control-plane/src/images/build.js';
import { RECIPES } from '../../control-plane/src/images/catalog.js';
import { PIN_LABEL, recipePin } from '../../control-plane/src/images/pin.js';
import { projectRoot } from '../../lib/project-root.js';
import { createDockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import { engine, recipesOf, uniqueLab } from './support.js';

const labelOf = async (docker: Docker, ref: string) =>
  (await docker.getImage(ref).inspect()).Config.Labels?.[PIN_LABEL];

/**
 * btcd's recipe under a name of this test's own: the tests below put other images under that name,
 * and the machine's btcd image is run meanwhile by the labs of the other lanes.
 */
const BTCD_REPO = 'localhost/reglab-btcd-image-test';
const BTCD_REF = `${BTCD_REPO}:local`;
const CATALOG = { ...RECIPES, btcd: { ...RECIPES.btcd, ref: BTCD_REF } };

/** Removes the tags of this test's btcd image that start with `prefix`. */
async function removeTags(docker: Docker, prefix: string): Promise<void> {
  const images = await docker.listImages({ filters: { label: ['reglab.image=btcd'] } });
  for (const tag of images.flatMap((image) => image.RepoTags ?? []).filter((tag) => tag.startsWith(prefix)))
    await docker.getImage(tag).remove();
}

/** Removes the tags that keep earlier builds of this test's btcd image under their pins: the next build of it is a build. */
const forgetKeptBuilds = (docker: Docker) => removeTags(docker, `${BTCD_REPO}:pin-`);

describe('image pins', () => {
  it('change with the Containerfile folder, the build arguments, the extra context and the base', () => {
    const images = mkdtempSync(join(tmpdir(), 'reglab-pin-'));
    try {
      cpSync(join(projectRoot(), 'images', 'local', 'btcd'), join(images, 'local', 'btcd'), { recursive: true });
      cpSync(join(projectRoot(), 'package.json'), join(images, 'bin-file'));
      const parts = [{ dir: images, entries: ['bin-file'] }];
      const recipe = RECIPES.btcd;
      const pin = recipePin(recipe, images, parts, ['base-1']);
      expect(recipePin(recipe, images, parts, ['base-1'])).toBe(pin);
      expect(recipePin(recipe, images, parts, ['base-2'])).not.toBe(pin);
      expect(
        recipePin({ ...recipe, buildArgs: { ...recipe.buildArgs, NODES_PIN: 'x' } }, images, parts, ['base-1']),
      ).not.toBe(pin);
      expect(recipePin(recipe, images, [{ ...parts[0], fingerprint: 'lock-1' }], ['base-1'])).not.toBe(pin);
      writeFileSync(join(images, 'bin-file'), 'other binary');
      const afterBinary = recipePin(recipe, images, parts, ['base-1']);
      expect(afterBinary).not.toBe(pin);
      writeFileSync(join(images, 'local', 'btcd', 'Containerfile'), '# changed\n', { flag: 'a' });
      expect(recipePin(recipe, images, parts, ['base-1'])).not.toBe(afterBinary);
    } finally {
      rmSync(images, { recursive: true, force: true });
    }
  });
});

describe('buildImages on Podman', () => {
  let docker: Docker;
  beforeAll(async () => {
    docker = await engine();
    // the first run here builds the Debian base (debootstrap, once per machine) and the btcd image
    await buildImages({ docker, catalog: CATALOG, images: recipesOf('btcd'), onProgress: () => undefined });
  });
  afterAll(async () => {
    await removeTags(docker, `${BTCD_REPO}:`);
  });

  it('skips every image that already carries its pin', async () => {
    const lines: string[] = [];
    const result = await buildImages({
      docker,
      catalog: CATALOG,
      images: recipesOf('btcd'),
      onProgress: (line) => lines.push(line),
    });
    expect(result.images).toEqual({ btcd: BTCD_REF });
    expect(result.built.map((image) => [image.id, image.action])).toEqual([
      ['debian', 'up-to-date'],
      ['btcd', 'up-to-date'],
    ]);
    expect(lines.join('\n')).toContain(`${BTCD_REF} is up to date`);
    for (const image of result.built) expect(await labelOf(docker, image.ref)).toBe(image.pin);
  });

  it('takes back an earlier build of the same inputs, kept under its pin, without building', async () => {
    const { built } = await buildImages({ docker, catalog: CATALOG, images: recipesOf('btcd') });
    const pin = built.find((image) => image.id === 'btcd')!.pin;
    // a build kept under its pin (the first build of it here is kept so too)
    await docker.getImage(BTCD_REF).tag({ repo: BTCD_REPO, tag: `pin-${pin}` });
    // another checkout's build took the name meanwhile
    await docker.getImage('localhost/reglab-debian:bookworm').tag({ repo: BTCD_REPO, tag: 'local' });
    const lines: string[] = [];
    const result = await buildImages({
      docker,
      catalog: CATALOG,
      images: recipesOf('btcd'),
      onProgress: (line) => lines.push(line),
    });
    expect(result.built.map((image) => [image.id, image.action])).toEqual([
      ['debian', 'up-to-date'],
      ['btcd', 'up-to-date'],
    ]);
    expect(lines.join('\n')).toContain(`${BTCD_REF} is back to its build of pin ${pin.slice(0, 12)}`);
    expect(lines.join('\n')).not.toMatch(/COPY btcd btcctl/);
    expect(await labelOf(docker, BTCD_REF)).toBe(pin);
  });

  it('rebuilds an image whose pin differs when no build of its pin is kept, and only that one', async () => {
    // put another pinned image under btcd's name, with no build of btcd kept: the builder must build btcd again
    await forgetKeptBuilds(docker);
    await docker.getImage('localhost/reglab-debian:bookworm').tag({ repo: BTCD_REPO, tag: 'local' });
    const lines: string[] = [];
    const result = await buildImages({
      docker,
      catalog: CATALOG,
      images: recipesOf('btcd'),
      onProgress: (line) => lines.push(line),
    });
    expect(result.built.map((image) => [image.id, image.action])).toEqual([
      ['debian', 'up-to-date'],
      ['btcd', 'built'],
    ]);
    expect(lines.join('\n')).toMatch(/COPY btcd btcctl/);
    expect(await labelOf(docker, BTCD_REF)).toBe(result.built[1].pin);
    // the build is kept under its pin too, for a checkout that comes back to these inputs
    expect(await labelOf(docker, `${BTCD_REPO}:pin-${result.built[1].pin}`)).toBe(result.built[1].pin);
    // the replaced image is still the Debian base: it keeps its tag and stays
    expect(await labelOf(docker, 'localhost/reglab-debian:bookworm')).toBe(result.built[0].pin);
  });

  it('tells a lab being prepared what it builds, and nothing of the images it finds up to date', async () => {
    await forgetKeptBuilds(docker);
    await docker.getImage('localhost/reglab-debian:bookworm').tag({ repo: BTCD_REPO, tag: 'local' });
    const runtime = createDockerRuntime({ docker, buildImages: true, imageCatalog: CATALOG });
    const lab = { name: uniqueLab('img'), dir: '/nonexistent' };
    const lines: string[] = [];
    try {
      await runtime.prepareLab(lab, recipesOf('btcd'), { onProgress: (line) => lines.push(line) });
    } finally {
      await runtime.removeLab(lab, { volumes: true });
    }
    expect(lines[0]).toMatch(/^building localhost\/reglab-btcd-image-test:local \(pin \w+, was \w+\)$/);
    expect(lines.join('\n')).toMatch(/COPY btcd btcctl/);
    expect(lines.join('\n')).not.toMatch(/up to date/);
  });

  it('uses the images a lab names itself without building them', async () => {
    const result = await buildImages({
      docker,
      images: recipesOf('redis'),
      overrides: { redis: 'example.org/my-redis:7' },
    });
    expect(result).toEqual({ images: { redis: 'example.org/my-redis:7' }, built: [] });
  });

  it('fails clearly when a lab asks for rln and no RLN image exists', async () => {
    await expect(buildImages({ docker, images: recipesOf('rln') })).rejects.toThrow(
      /needs image localhost\/reglab-rln:\S+ and it is not here: RGB Lightning Node cannot be built on this machine: its build needs GitHub.*podman load/,
    );
  });
});
