// The services image's copy of the project, bundled into the machine's cache when the sources
// change (a docker lab's bring-up after an update): the control plane that asks for it keeps
// answering meanwhile, is told what takes the time, and a second ask with the same sources is free.
import { existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourcesPin, stageServices } from '../../control-plane/src/images/services-build.js';
import { projectRoot } from '../../lib/project-root.js';
import { temporaryCacheDir } from '../support/cache-dir.js';

describe("the services image's bundled copy of the project", () => {
  const cache = temporaryCacheDir('reglab-stage-');

  it('is bundled once per sources pin, while the process that asked answers requests', async () => {
    const server = createServer((_request, response) => response.end('answered'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const lines: string[] = [];
      let staged = false;
      const staging = stageServices(projectRoot(), (line) => lines.push(line)).finally(() => (staged = true));

      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await answer.text()).toBe('answered');
      expect(staged).toBe(false);

      const { dir, pin } = await staging;
      expect(dir).toBe(join(cache, 'services-build'));
      expect(pin).toBe(sourcesPin(projectRoot()));
      expect(lines[0]).toBe(`bundling the project for the services image into ${dir}`);
      // the bundles alone, without source maps: what the image runs (container-spec.ts), nothing of a tsc tree
      expect(readdirSync(join(dir, 'dist'))).toEqual(['bundle']);
      expect(existsSync(join(dir, 'dist', 'bundle', 'wallet-server.js'))).toBe(true);
      expect(existsSync(join(dir, 'dist', 'bundle', 'wallet-server.js.map'))).toBe(false);
      expect(existsSync(join(dir, 'dist', 'bundle', 'lightning.cjs'))).toBe(true);
      expect(readdirSync(join(dir, 'services', 'faucet', 'public')).length).toBeGreaterThan(0);

      const again: string[] = [];
      expect(await stageServices(projectRoot(), (line) => again.push(line))).toEqual({ dir, pin });
      expect(again).toEqual([]);
    } finally {
      server.close();
    }
  });
});
