// A docker lab's service data: its volume, as a tar archive of the container's /data, read from
// the stopped container and written back through a helper container of the service's own image
// that only sleeps while the archive is unpacked (Podman writes an archive into a volume only while
// the container runs; into one never started it lands in the container's own file system).
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { kindDefinition } from '../nodes/registry.js';
import { CONTAINER_DATA_DIR, containerName, volumeName } from '../runtimes/docker/placement.js';
import { LABELS, type DockerRuntime } from '../runtimes/docker/runtime.js';
import type { ServiceData } from './service-data.js';

const archiveOf = (snapshotDir: string, service: string) => join(snapshotDir, 'volumes', `${service}.tar`);

const ignoreMissing = (error: unknown) => {
  if ((error as { statusCode?: number }).statusCode !== 404) throw error;
};

/**
 * Where an archive of /data unpacks: Docker names its entries data/... (unpacked at the root), as
 * Podman does for a running container; Podman names those of a stopped one from / (the folder itself).
 */
async function unpackAt(archive: string): Promise<string> {
  const file = await open(archive);
  try {
    const { buffer } = await file.read(Buffer.alloc(100), 0, 100, 0);
    const first = buffer.toString('utf8').replace(/\0.*$/s, '').replace(/^\.?\/+/, '');
    return first === 'data' || first.startsWith('data/') ? '/' : CONTAINER_DATA_DIR;
  } finally {
    await file.close();
  }
}

export function dockerData(runtime: DockerRuntime): ServiceData {
  return {
    async save(lab, service, snapshotDir) {
      const docker = await runtime.docker();
      const file = archiveOf(snapshotDir, service.name);
      await mkdir(join(snapshotDir, 'volumes'), { recursive: true });
      await pipeline(await docker.getContainer(containerName(lab.name, service.name)).getArchive({ path: CONTAINER_DATA_DIR }), createWriteStream(file, { mode: 0o600 }));
      return (await stat(file)).size;
    },
    async restore(lab, service, snapshotDir) {
      const docker = await runtime.docker();
      const volume = volumeName(lab.name, service.name);
      const labels = { [LABELS.lab]: lab.name, [LABELS.service]: service.name, [LABELS.kind]: service.kind };
      // the volume is made anew: files written after the snapshot must not survive next to its own
      await docker.getContainer(containerName(lab.name, service.name)).remove({ force: true }).catch(ignoreMissing);
      await docker.getVolume(volume).remove().catch(ignoreMissing);
      await docker.createVolume({ Name: volume, Labels: labels });
      const helperName = `${containerName(lab.name, service.name)}-restore`;
      await docker.getContainer(helperName).remove({ force: true }).catch(ignoreMissing);
      const helper = await docker.createContainer({
        name: helperName,
        Image: runtime.imageFor(service.kind, kindDefinition(service.kind).image),
        Entrypoint: ['sleep', 'infinity'],
        Cmd: [],
        Labels: labels,
        HostConfig: { Binds: [`${volume}:${CONTAINER_DATA_DIR}`] },
      });
      try {
        await helper.start();
        const archive = archiveOf(snapshotDir, service.name);
        await helper.putArchive(createReadStream(archive), { path: await unpackAt(archive) });
      } finally {
        // killed first: sleep, as the container's first process, ignores the SIGTERM a removal starts with
        await helper.kill().catch(() => undefined);
        await helper.remove({ force: true }).catch(ignoreMissing);
      }
    },
  };
}
