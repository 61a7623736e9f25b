// A docker lab's service data: its volume, as a tar archive of the container's /data. Saved from
// the stopped container; restored into a new volume, unpacked straight into the volume's folder when
// it is on this machine and ours to write (a local volume of a rootful engine, reglab as root), or
// else through a helper container of the service's own image that only sleeps while the archive is
// unpacked (Podman writes an archive into a volume only while the container runs; into one never
// started it lands in the container's own file system). For a reset, where the folder is ours to
// write, the service is held in its container instead (DockerRuntime.hold) and the folder emptied
// and refilled under it.
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, chown, mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { retryWhile } from '../../../lib/wait.js';
import type { LabState, ServiceState } from '../lab/state.js';
import { kindDefinition } from '../nodes/registry.js';
import { CONTAINER_DATA_DIR, containerName, volumeName } from '../runtimes/docker/placement.js';
import { LABELS } from '../runtimes/docker/container-spec.js';
import type { DockerRuntime } from '../runtimes/docker/runtime.js';
import type { ServiceData } from './service-data.js';

const run = promisify(execFile);
const archiveOf = (snapshotDir: string, service: string) => join(snapshotDir, 'volumes', `${service}.tar`);

/**
 * Podman answers 500 "open /proc/PID/ns/mnt: no such file or directory" when a container's archive
 * is asked for just after it stopped, before its clean-up: asked again, it answers.
 */
const isStillStopping = (error: unknown) => (error as { statusCode?: number }).statusCode === 500 && /\/proc\/\d+\/ns\//.test(String((error as Error).message));

const ignoreMissing = (error: unknown) => {
  if ((error as { statusCode?: number }).statusCode !== 404) throw error;
};

/** The archive's first entry: /data itself, named data/ (Docker, and Podman for a running container) or / (Podman for a stopped one). */
interface TopEntry {
  /** Its entries are data/...: unpacked into the volume's folder, that first part goes. */
  namedData: boolean;
  /** The folder's mode and owner, when the first entry is the folder. */
  folder?: { mode: number; uid: number; gid: number };
}

const octal = (header: Buffer, offset: number, length: number) => parseInt(header.toString('latin1', offset, offset + length).replace(/\0.*$/s, '').trim(), 8);

async function topEntryOf(archive: string): Promise<TopEntry> {
  const file = await open(archive);
  try {
    const { buffer: header } = await file.read(Buffer.alloc(512), 0, 512, 0);
    const name = header.toString('utf8', 0, 100).replace(/\0.*$/s, '').replace(/^\.?\/+/, '').replace(/\/$/, '');
    const isFolder = header.toString('latin1', 156, 157) === '5' && (name === '' || name === 'data');
    return {
      namedData: name === 'data' || name.startsWith('data/'),
      folder: isFolder ? { mode: octal(header, 100, 8) & 0o7777, uid: octal(header, 108, 8), gid: octal(header, 116, 8) } : undefined,
    };
  } finally {
    await file.close();
  }
}

/** The new (empty) volume's folder, when reglab can write it directly with the owners the containers see. */
async function writableFolderOf(runtime: DockerRuntime, docker: Docker, volume: string): Promise<string | undefined> {
  const folder = await runtime.volumeFolder(docker, volume);
  if (!folder) return undefined;
  // on another machine (a remote engine, a VM) the folder is not here, or not this new empty one
  const entries = await readdir(folder).catch(() => undefined);
  return entries?.length === 0 ? folder : undefined;
}

/** Unpacks the archive into the volume's folder with the owners and modes it holds, as the engine would. */
export async function unpackInto(folder: string, archive: string): Promise<void> {
  const top = await topEntryOf(archive);
  await run('tar', ['-x', '--numeric-owner', '--same-owner', '--same-permissions', '-f', archive, '-C', folder, ...(top.namedData ? ['--strip-components=1'] : [])]);
  if (top.folder) {
    await chown(folder, top.folder.uid, top.folder.gid);
    await chmod(folder, top.folder.mode);
  }
}

async function unpackThroughHelper(runtime: DockerRuntime, docker: Docker, lab: LabState, service: ServiceState, labels: Record<string, string>, archive: string): Promise<void> {
  const helperName = `${containerName(lab.name, service.name)}-restore`;
  await docker.getContainer(helperName).remove({ force: true }).catch(ignoreMissing);
  const helper = await docker.createContainer({
    name: helperName,
    Image: runtime.imageFor(service.kind, kindDefinition(service.kind).image),
    Entrypoint: ['sleep', 'infinity'],
    Cmd: [],
    Labels: labels,
    HostConfig: { Binds: [`${volumeName(lab.name, service.name)}:${CONTAINER_DATA_DIR}`] },
  });
  try {
    await helper.start();
    await helper.putArchive(createReadStream(archive), { path: (await topEntryOf(archive)).namedData ? '/' : CONTAINER_DATA_DIR });
  } finally {
    // killed first: sleep, as the container's first process, ignores the SIGTERM a removal starts with
    await helper.kill().catch(() => undefined);
    await helper.remove({ force: true }).catch(ignoreMissing);
  }
}

export interface DockerDataOptions {
  /** Every archive through a helper container, even where the volume's folder could be written directly. */
  helperOnly?: boolean;
}

export function dockerData(runtime: DockerRuntime, options: DockerDataOptions = {}): ServiceData {
  return {
    async save(lab, service, snapshotDir) {
      const docker = await runtime.docker();
      const file = archiveOf(snapshotDir, service.name);
      await mkdir(join(snapshotDir, 'volumes'), { recursive: true });
      const container = docker.getContainer(containerName(lab.name, service.name));
      const archive = await retryWhile(() => container.getArchive({ path: CONTAINER_DATA_DIR }), isStillStopping, { timeoutMs: 5_000, intervalMs: 100 });
      await pipeline(archive, createWriteStream(file, { mode: 0o600 }));
      return (await stat(file)).size;
    },
    async hold(lab, service) {
      if (options.helperOnly) return false;
      return service.handle !== undefined && (await runtime.hold(service.handle)) !== undefined;
    },
    async restore(lab, service, snapshotDir) {
      const archive = archiveOf(snapshotDir, service.name);
      const heldFolder = runtime.heldFolder(lab.name, service.name);
      if (heldFolder) {
        // files written after the snapshot must not survive next to its own
        await Promise.all((await readdir(heldFolder)).map((entry) => rm(join(heldFolder, entry), { recursive: true, force: true })));
        await unpackInto(heldFolder, archive);
        return;
      }
      const docker = await runtime.docker();
      const volume = volumeName(lab.name, service.name);
      const labels = { [LABELS.lab]: lab.name, [LABELS.service]: service.name, [LABELS.kind]: service.kind };
      // the volume is made anew: files written after the snapshot must not survive next to its own
      await docker.getContainer(containerName(lab.name, service.name)).remove({ force: true }).catch(ignoreMissing);
      await runtime.removeVolume(docker, volume);
      await docker.createVolume({ Name: volume, Labels: labels });
      const folder = options.helperOnly ? undefined : await writableFolderOf(runtime, docker, volume);
      await (folder ? unpackInto(folder, archive) : unpackThroughHelper(runtime, docker, lab, service, labels, archive));
    },
  };
}
