import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverEngine, engineCandidates, WELL_KNOWN_SOCKETS } from '../../control-plane/src/runtimes/docker/engine.js';

describe('engine discovery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-engine-'));
  let silent: Server | undefined;
  afterAll(() => {
    silent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tries DOCKER_HOST first, then the Docker and Podman sockets, then rootless Podman', () => {
    expect(engineCandidates({ env: { DOCKER_HOST: 'tcp://10.0.0.1:2375', XDG_RUNTIME_DIR: '/run/user/1000' } })).toEqual([
      'tcp://10.0.0.1:2375',
      'unix:///var/run/docker.sock',
      'unix:///run/podman/podman.sock',
      'unix:///run/user/1000/podman/podman.sock',
    ]);
  });

  it('finds the engine of this machine (Podman here) on its well-known socket and talks to it', async () => {
    const found = await discoverEngine({ env: {} });
    expect(WELL_KNOWN_SOCKETS).toContain(found.address);
    const version = await found.docker.version();
    expect(version.ApiVersion).toMatch(/^\d+\.\d+/);
  });

  it('moves on past a DOCKER_HOST that does not answer', async () => {
    const found = await discoverEngine({ env: { DOCKER_HOST: `unix://${join(dir, 'missing.sock')}` } });
    expect(WELL_KNOWN_SOCKETS).toContain(found.address);
  });

  it('says how to start Podman when nothing answers', async () => {
    // a socket that accepts connections but never replies, and one that does not exist
    const socket = join(dir, 'silent.sock');
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent!.listen(socket, resolve));
    const attempt = discoverEngine({ env: {}, sockets: [`unix://${socket}`, `unix://${join(dir, 'none.sock')}`], timeoutMs: 500 });
    await expect(attempt).rejects.toThrow(/no Docker Engine API answers .*silent\.sock \(no answer\).*none\.sock \(no socket\).*scripts\/podman-setup\.sh/);
  });
});
