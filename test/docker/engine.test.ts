import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  discoverEngine,
  dockerClient,
  engineCandidates,
  socketOwnedByRoot,
  WELL_KNOWN_SOCKETS,
} from '../../control-plane/src/runtimes/docker/engine.js';
import { waitFor } from '../../lib/wait.js';

describe('engine discovery', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-engine-'));
  let silent: Server | undefined;
  let owned: Server | undefined;
  afterAll(() => {
    silent?.close();
    owned?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tries DOCKER_HOST first, then the Docker and Podman sockets, then rootless Podman', () => {
    expect(
      engineCandidates({ env: { DOCKER_HOST: 'tcp://10.0.0.1:2375', XDG_RUNTIME_DIR: '/run/user/1000' } }),
    ).toEqual([
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
    const attempt = discoverEngine({
      env: {},
      sockets: [`unix://${socket}`, `unix://${join(dir, 'none.sock')}`],
      timeoutMs: 500,
    });
    await expect(attempt).rejects.toThrow(
      /no Docker Engine API answers .*silent\.sock \(no answer\).*none\.sock \(no socket\).*scripts\/podman-setup\.sh/,
    );
    await expect(attempt).rejects.toMatchObject({ kind: 'unavailable', code: 'CONTAINER_ENGINE_UNAVAILABLE' });
  });

  it('says the engine stopped answering, and how to start it, when it goes after it was found', async () => {
    // an engine killed with -9 leaves its socket with no one listening (connect ECONNREFUSED)
    const socket = join(dir, 'killed.sock');
    const engine = spawn(
      process.execPath,
      ['-e', 'require("node:net").createServer().listen(process.argv[1])', socket],
      { stdio: 'ignore' },
    );
    await waitFor(async () => existsSync(socket), {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: 'the stand-in engine to listen',
    });
    const docker = await dockerClient(`unix://${socket}`);
    engine.kill('SIGKILL');
    await new Promise((resolve) => engine.once('exit', resolve));
    const refused = docker.listContainers();
    await expect(refused).rejects.toMatchObject({ kind: 'unavailable', code: 'CONTAINER_ENGINE_UNAVAILABLE' });
    await expect(refused).rejects.toThrow(
      new RegExp(
        `the container engine at unix://${socket} does not answer \\(connect ECONNREFUSED.*scripts/podman-setup\\.sh`,
      ),
    );
    // and its socket gone (ENOENT)
    rmSync(socket);
    await expect(docker.ping()).rejects.toMatchObject({ code: 'CONTAINER_ENGINE_UNAVAILABLE' });
  });

  it("tells an engine that runs as root by its socket's owner, as its /info does", async () => {
    const found = await discoverEngine({ env: {} });
    const info: { SecurityOptions?: string[] } = await found.docker.info();
    const rootless = (info.SecurityOptions ?? []).some((option) => option.includes('name=rootless'));
    expect(await socketOwnedByRoot(found.address)).toBe(!rootless);
  });

  it("says an engine whose socket another user owns is not root's, and nothing of a TCP address or a missing socket", async () => {
    const socket = join(dir, 'owned.sock');
    owned = createServer(() => undefined);
    await new Promise<void>((resolve) => owned!.listen(socket, resolve));
    if (process.getuid?.() === 0) chownSync(socket, 65534, 65534);
    expect(await socketOwnedByRoot(`unix://${socket}`)).toBe(false);
    expect(await socketOwnedByRoot('tcp://127.0.0.1:2375')).toBeUndefined();
    expect(await socketOwnedByRoot(`unix://${join(dir, 'none.sock')}`)).toBeUndefined();
  });
});
