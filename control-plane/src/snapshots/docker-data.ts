// A docker lab's service data: its volume, as a tar archive of the container's /data, read from
// the stopped container and written back through a helper container that is never started, so
// any Docker Engine API (Docker, Podman) does it and no image beyond the service's own is needed.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
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
        Labels: labels,
        HostConfig: { Binds: [`${volume}:${CONTAINER_DATA_DIR}`] },
      });
      try {
        // the archive's entries are data/..., so it is unpacked at the root
        await helper.putArchive(createReadStream(archiveOf(snapshotDir, service.name)), { path: '/' });
      } finally {
        await helper.remove({ force: true }).catch(ignoreMissing);
      }
    },
  };
}
