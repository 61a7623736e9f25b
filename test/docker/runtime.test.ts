import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Docker from 'dockerode';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapPartError } from '../../control-plane/src/api/errors.js';
import { redisServiceLaunch } from '../../control-plane/src/nodes/redis/index.js';
import { createDockerRuntime, type DockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import { dockerPlacement } from '../../control-plane/src/runtimes/docker/placement.js';
import { discoverEngine } from '../../control-plane/src/runtimes/docker/engine.js';
import type { RuntimeHandle } from '../../control-plane/src/runtimes/types.js';
import { waitFor } from '../../lib/wait.js';
import { labLeftovers, layoutOf, redisRuntime, startRequest, uniqueLab } from './support.js';

async function ping(port: number): Promise<string> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined); // connect() rejects with the same error
  try {
    await client.connect();
    return await client.ping();
  } finally {
    client.disconnect();
  }
}

describe('docker runtime without an engine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-no-engine-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says the engine is unavailable and how to start it, then finds the engine started after it', async () => {
    const socket = join(dir, 'engine.sock');
    const runtime = createDockerRuntime({ discovery: { env: {}, sockets: [`unix://${socket}`], timeoutMs: 2_000 } });
    await expect(runtime.docker()).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'CONTAINER_ENGINE_UNAVAILABLE',
      message: expect.stringMatching(/engine\.sock \(no socket\).*scripts\/podman-setup\.sh/),
    });
    // the engine comes up at that address after the first attempt
    const { address } = await discoverEngine({ env: {} });
    symlinkSync(address.replace(/^unix:\/\//, ''), socket);
    const docker = await runtime.docker();
    expect((await docker.version()).ApiVersion).toMatch(/^\d+\.\d+/);
  });
});

describe('docker runtime on Podman', () => {
  let docker: Docker;
  let runtime: DockerRuntime;
  const lab = { name: uniqueLab('rt'), dir: '/nonexistent' };
  const layout = layoutOf(lab, { cache: 'redis' });
  const location = { lab, service: 'cache' };
  let handle: RuntimeHandle;
  let hostPort: number;

  beforeAll(async () => {
    ({ docker, runtime, hostPort } = await redisRuntime(lab));
    handle = await runtime.start(
      startRequest(lab, 'cache', 'redis', redisServiceLaunch(dockerPlacement(layout, 'cache')), { redis: hostPort }),
    );
  });

  afterAll(async () => {
    await runtime?.removeLab(lab, { volumes: true });
  });

  it('runs the service in a labelled container with an init, a volume and ports on 127.0.0.1 only', async () => {
    expect(handle.runtime).toBe('docker');
    const info = await docker.getContainer(handle.runtime === 'docker' ? handle.containerId : '').inspect();
    expect(info.Name.replace(/^\//, '')).toBe(`reglab-${lab.name}-cache`);
    expect(info.Config.Labels).toMatchObject({
      'reglab.lab': lab.name,
      'reglab.service': 'cache',
      'reglab.kind': 'redis',
    });
    expect(info.HostConfig.Init).toBe(true);
    expect(info.HostConfig.PortBindings).toEqual({ '6379/tcp': [{ HostIp: '127.0.0.1', HostPort: String(hostPort) }] });
    expect(info.Mounts.map((mount) => [mount.Name, mount.Destination])).toEqual([
      [`reglab-${lab.name}-cache`, '/data'],
    ]);
    expect(Object.keys(info.NetworkSettings.Networks)).toEqual([`reglab-${lab.name}`]);
    expect(await waitFor(() => ping(hostPort), { timeoutMs: 20_000, what: 'redis in its container' })).toBe('PONG');
    expect(await runtime.isAlive(handle)).toBe(true);
  });

  it('gives the last lines of the output, by handle and by service name', async () => {
    const text = await waitFor(
      async () => {
        const logs = await runtime.logs(location, handle, 50);
        return logs.includes('Ready to accept connections') && logs;
      },
      { timeoutMs: 10_000, what: 'redis start-up logs' },
    );
    expect(text).not.toMatch(/[\x00-\x08]/); // the stream framing is gone
    expect(await runtime.logs(location, undefined, 1)).toMatch(/^[^\n]*\n?$/);
  });

  it('reads files from the service data folder, also after the service stopped', async () => {
    await ping(hostPort); // the redis folder is /data; make it write a file there
    const client = new Redis({ host: '127.0.0.1', port: hostPort });
    await client.save();
    client.disconnect();
    const dump = await runtime.readServiceFile(location, 'dump.rdb');
    expect(dump.subarray(0, 5).toString()).toBe('REDIS');
    await expect(runtime.readServiceFile(location, 'no-such-file')).rejects.toThrow(
      /cache has no file \/data\/no-such-file/,
    );
    await expect(runtime.readServiceFile(location, '.')).rejects.toThrow(/is not a regular file/);
  });

  it('never reads a file of this machine through a link the service made in its data folder', async () => {
    const secret = join(mkdtempSync(join(tmpdir(), 'reglab-host-')), 'secret');
    writeFileSync(secret, `host only ${randomBytes(8).toString('hex')}`);
    const { Mountpoint } = await docker.getVolume(`reglab-${lab.name}-cache`).inspect();
    symlinkSync(secret, join(Mountpoint, 'escape'));
    const read = await runtime.readServiceFile(location, 'escape').catch((error: Error) => error.message);
    expect(String(read)).not.toContain(readFileSync(secret, 'utf8'));
    rmSync(dirname(secret), { recursive: true });
  });

  it('is found again by a new runtime from the container labels', async () => {
    const restarted = createDockerRuntime({ docker });
    const found = await restarted.findContainers(lab.name);
    expect(found).toEqual([
      {
        service: 'cache',
        kind: 'redis',
        containerId: handle.runtime === 'docker' ? handle.containerId : '',
        running: true,
        hostPorts: { '6379/tcp': hostPort },
      },
    ]);
    expect(await restarted.isAlive({ runtime: 'docker', containerId: found[0].containerId })).toBe(true);
  });

  it('stops on its stop signal, keeps the logs and data, and starts again on the same volume', async () => {
    await runtime.stop(handle);
    expect(await runtime.isAlive(handle)).toBe(false);
    await runtime.stop(handle); // stopping twice is fine
    // redis saved and exited on SIGTERM: not killed at the end of the stop's grace period (137)
    expect(await runtime.exitStatus(handle)).toEqual({ code: 0 });
    expect(await runtime.logs(location, undefined, 200)).toMatch(/Ready to accept connections/);
    handle = await runtime.start(
      startRequest(lab, 'cache', 'redis', redisServiceLaunch(dockerPlacement(layout, 'cache')), { redis: hostPort }),
    );
    expect(await waitFor(() => ping(hostPort), { timeoutMs: 20_000, what: 'redis restarted' })).toBe('PONG');
    expect((await runtime.readServiceFile(location, 'dump.rdb')).subarray(0, 5).toString()).toBe('REDIS');
    expect(await runtime.findContainers(lab.name)).toHaveLength(1);
  });

  it('holds a service in its container for a reset, and runs it there again for the same launch only', async () => {
    const launch = redisServiceLaunch(dockerPlacement(layout, 'cache'));
    const folder = await runtime.hold(handle);
    expect(folder).toMatch(new RegExp(`reglab-${lab.name}-cache`));
    await expect(ping(hostPort)).rejects.toThrow(); // redis has ended (SIGKILL: the request's default) ...
    expect(await runtime.isAlive(handle)).toBe(true); // ... in a container that still runs
    expect(await runtime.logs(location, handle, 5)).toMatch(/ended \(status 137\) for a reset of its lab/);
    expect(runtime.heldFolder(lab.name, 'cache')).toBe(folder);

    const resumed = await runtime.start(startRequest(lab, 'cache', 'redis', launch, { redis: hostPort }));
    expect(resumed).toEqual(handle);
    expect(runtime.heldFolder(lab.name, 'cache')).toBeUndefined();
    expect(
      await waitFor(() => ping(hostPort), { timeoutMs: 20_000, what: 'redis running again in its container' }),
    ).toBe('PONG');

    await runtime.hold(handle);
    const otherLaunch = { ...launch, args: [...launch.args, '--loglevel', 'verbose'] };
    handle = await runtime.start(startRequest(lab, 'cache', 'redis', otherLaunch, { redis: hostPort }));
    expect(handle).not.toEqual(resumed); // another launch: a new container
    expect(await waitFor(() => ping(hostPort), { timeoutMs: 20_000, what: 'redis in its new container' })).toBe('PONG');
    expect(await runtime.findContainers(lab.name)).toHaveLength(1);
  });

  it('kills a container (twice is fine), tells of its death as it happens, and how it ended', async () => {
    let told = 0;
    const unwatch = runtime.watchExits(lab, () => (told += 1));
    try {
      await runtime.kill(handle);
      await waitFor(async () => told > 0, {
        timeoutMs: 10_000,
        intervalMs: 50,
        what: 'the engine to tell of the death',
      });
    } finally {
      unwatch();
    }
    expect(await runtime.isAlive(handle)).toBe(false);
    expect(await runtime.exitStatus(handle)).toEqual({ code: 137, signal: 'SIGKILL' });
    await runtime.kill(handle);
  });

  it('says which image is missing and how to build it', async () => {
    const bare = createDockerRuntime({ docker, images: { redis: 'localhost/reglab-nothing:here' } });
    const launch = redisServiceLaunch(dockerPlacement(layout, 'cache'));
    await expect(bare.start(startRequest(lab, 'other', 'redis', launch, {}))).rejects.toThrow(
      /cannot start other \(redis\): image localhost\/reglab-nothing:here is not in the container engine/,
    );
    await expect(createDockerRuntime({ docker }).start(startRequest(lab, 'rgb', 'rln', launch, {}))).rejects.toThrow(
      /cannot start rgb \(rln\).*RGB Lightning Node cannot be built on this machine/,
    );
  });

  it('removes the lab without leaving a container, a network or a volume', async () => {
    expect((await labLeftovers(docker, lab.name)).volumes).toEqual([`reglab-${lab.name}-cache`]);
    await runtime.removeLab(lab, { volumes: false });
    expect(await labLeftovers(docker, lab.name)).toEqual({
      containers: [],
      networks: [],
      volumes: [`reglab-${lab.name}-cache`],
    });
    await runtime.removeLab(lab, { volumes: true });
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it("tells a refusal of the engine by the engine's own message, for the API to answer as a 502", async () => {
    const refusal = await docker
      .getNetwork(`reglab-${lab.name}-none`)
      .remove()
      .catch((error: unknown) => error);
    expect(mapPartError(refusal)).toMatchObject({
      kind: 'upstream',
      code: 'CONTAINER_ENGINE_ERROR',
      message: expect.stringMatching(/^the container engine refused: .*not found.* \(HTTP 404\)$/),
    });
    expect(mapPartError(new Error('not from the engine'))).toBeUndefined();
  });

  it('takes containers not of the lab off its network to remove it, and leaves them there', async () => {
    await runtime.prepareLab(lab);
    const image = runtime.imageFor('redis', 'redis');
    const onNetwork = (name: string, entrypoint: string[]) =>
      docker.createContainer({
        name: `${lab.name}-${name}`,
        Image: image,
        Entrypoint: entrypoint,
        HostConfig: { NetworkMode: `reglab-${lab.name}` },
      });
    const client = await onNetwork('test-client', ['sleep', '120']);
    const finished = await onNetwork('finished', ['true']);
    try {
      await client.start();
      await finished.start();
      await finished.wait();
      expect((await runtime.removeLab(lab, { volumes: true })).sort()).toEqual([
        `${lab.name}-finished`,
        `${lab.name}-test-client`,
      ]);
      expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
      const after = await client.inspect();
      expect(after.State.Running).toBe(true);
      expect(Object.keys(after.NetworkSettings.Networks)).not.toContain(`reglab-${lab.name}`);
      await expect(finished.inspect()).resolves.toMatchObject({ State: { Running: false } });
    } finally {
      await client.remove({ force: true });
      await finished.remove({ force: true });
    }
  });
});
