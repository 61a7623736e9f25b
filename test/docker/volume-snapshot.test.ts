// A docker service's volume as a snapshot holds it, on real Podman: saved from the stopped container,
// changed after, then restored each way reglab does it — written over the volume the service left, or
// unpacked straight into a new volume's folder (root and a rootful engine, as here), and through a
// helper container of the service's image (every other engine) — and the service started on it finds
// the data of the snapshot, nothing later.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabState, ServiceState } from '../../control-plane/src/lab/state.js';
import { redisServiceLaunch } from '../../control-plane/src/nodes/redis/index.js';
import type { DockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import { containerName, dockerPlacement, volumeName } from '../../control-plane/src/runtimes/docker/placement.js';
import type { RuntimeHandle } from '../../control-plane/src/runtimes/types.js';
import { dockerData } from '../../control-plane/src/snapshots/docker-data.js';
import { waitFor } from '../../lib/wait.js';
import { labLeftovers, layoutOf, redisRuntime, startRequest, uniqueLab } from './support.js';

describe("a docker service's volume saved and restored for a snapshot", () => {
  let docker: Docker;
  let runtime: DockerRuntime;
  let snapshotDir: string;
  let hostPort: number;
  let handle: RuntimeHandle | undefined;
  const lab = { name: uniqueLab('vs'), dir: '/nonexistent' };
  const layout = layoutOf(lab, { cache: 'redis' });
  // what save and restore read of a lab and its service
  const labState = { name: lab.name } as LabState;
  const service = { name: 'cache', kind: 'redis' } as ServiceState;

  const startCache = async () => {
    handle = await runtime.start(
      startRequest(lab, 'cache', 'redis', redisServiceLaunch(dockerPlacement(layout, 'cache')), { redis: hostPort }),
    );
    const client = new Redis({ host: '127.0.0.1', port: hostPort, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
    client.on('error', () => undefined);
    await waitFor(async () => (await client.ping().catch(() => undefined)) === 'PONG', {
      timeoutMs: 20_000,
      what: 'redis in its container',
    });
    return client;
  };

  /** Writes the values, saves them to /data and stops the container, as a snapshot's save does. */
  const writeAndStop = async (values: Record<string, string>) => {
    const client = await startCache();
    for (const [key, value] of Object.entries(values)) await client.set(key, value);
    await client.save();
    client.disconnect();
    await runtime.stop(handle!);
  };

  const readAll = async () => {
    const client = await startCache();
    try {
      return { k: await client.get('k'), later: await client.get('later') };
    } finally {
      client.disconnect();
      await runtime.stop(handle!);
    }
  };

  beforeAll(async () => {
    ({ docker, runtime, hostPort } = await redisRuntime(lab));
    snapshotDir = mkdtempSync(join(tmpdir(), 'reglab-volume-snapshot-'));
    await writeAndStop({ k: 'snapshot' });
    expect(await dockerData(runtime).save(labState, service, snapshotDir)).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await runtime?.removeLab(lab, { volumes: true });
    if (snapshotDir) rmSync(snapshotDir, { recursive: true, force: true });
  });

  // the engines answer it, though dockerode's types leave it out
  const volumeCreated = async () =>
    ((await docker.getVolume(volumeName(lab.name, service.name)).inspect()) as { CreatedAt?: string }).CreatedAt;

  it.each([
    ['written over the volume the service left (an up after `reglab down`)', {}, 'kept'],
    ['unpacked straight into a new volume folder (after `reglab down --volumes`)', {}, 'removed'],
    ['unpacked through a helper container', { helperOnly: true }, 'kept'],
  ] as const)(
    'restored %s, the service finds the data of the snapshot and nothing written after it',
    async (how, options, volume) => {
      await writeAndStop({ k: 'after', later: 'yes' });
      expect(await readAll()).toEqual({ k: 'after', later: 'yes' });
      if (volume === 'removed') {
        await docker.getContainer(containerName(lab.name, service.name)).remove({ force: true });
        await runtime.removeVolume(docker, volumeName(lab.name, service.name));
      }
      const createdBefore = volume === 'kept' ? await volumeCreated() : undefined;

      await dockerData(runtime, options).restore(labState, service, snapshotDir);

      expect(await readAll()).toEqual({ k: 'snapshot', later: null });
      const { containers } = await labLeftovers(docker, lab.name);
      expect(containers).toEqual([`/reglab-${lab.name}-cache`]); // no helper container left
      if (how.startsWith('written over'))
        expect(await volumeCreated()).toBe(createdBefore ?? "the volume's creation time");
    },
  );
});
