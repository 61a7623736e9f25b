// A lab that asks for an rln node where its image cannot be built: the bring-up says so clearly
// and leaves nothing behind. (Its start sequence is covered against the RLN double in
// rln-bringup.test.ts.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bringUp, newLabState } from '../../control-plane/src/lab/bring-up.js';
import { tearDown } from '../../control-plane/src/lab/tear-down.js';
import { dockerRuntimeOptions } from '../../control-plane/src/runtimes/docker/host.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';
import { engine, labLeftovers, uniqueLab } from './support.js';

describe('an rln node without its image', () => {
  const options = dockerRuntimeOptions();
  const dir = mkdtempSync(join(tmpdir(), 'reglab-rln-lab-'));
  const yaml = stringify({ name: uniqueLab('rln'), runtime: 'docker', nodes: [{ name: 'rgb', kind: 'rln' }] });
  const lab = newLabState(parseLabSpec(yaml, 'rln-lab.yaml'), yaml, join(dir, 'lab'));

  let failure: Error | undefined;
  // in a hook: the first docker bring-up after a source change rebuilds the services image (a minute)
  beforeAll(async () => {
    failure = await bringUp(lab, {
      runtimeOptions: options,
      onEvent: () => undefined,
      persist: async () => undefined,
    }).then(
      () => undefined,
      (error: Error) => error,
    );
  });

  afterAll(async () => {
    await tearDown(lab, options.runtime, { volumes: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails the bring-up saying why RLN cannot run here and how to get its image', async () => {
    expect(failure?.message).toContain('RGB Lightning Node cannot be built on this machine');
    expect(failure?.message).toContain('reglab images build --upstream');
    expect(lab.status).toBe('failed');
    expect(lab.services.rgb.status).toBe('failed');
    expect(lab.services.rgb.error).toContain('RGB Lightning Node cannot be built on this machine');
    // the images are had before anything starts: a lab that cannot run starts nothing
    expect(lab.services.chain.status).toBe('pending');
  });

  it('leaves no container, network or volume after tear-down', async () => {
    await tearDown(lab, options.runtime, { volumes: true });
    expect(await labLeftovers(await engine(), lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
