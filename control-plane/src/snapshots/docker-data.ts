// A docker lab's service data: its volume, as a tar archive of the container's /data, saved from
// the stopped container. Where the volume's folder is on this machine and ours to write (a local
// volume of a rootful engine, reglab as root), the archive is unpacked straight into it: over the
// data a reset holds in its container (DockerRuntime.hold) or an earlier lab of this name left in
// the volume (see write-over.ts), or into a new volume. Else it goes into a new volume through a
// helper container of the service's own image that only sleeps while the archive is unpacked
// (Podman writes an archive into a volume only while the container runs; into one never started it
// lands in the container's own file system).
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, chown, mkdir, readdir, stat } from 'node:fs/promises';
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
import { readTarEntries, type EntryKind, type TarEntry } from './tar-entries.js';
import { pruneTo } from './write-over.js';

const run = promisify(execFile);
const archiveOf = (snapshotDir: string, service: string) => join(snapshotDir, 'volumes', `${service}.tar`);

/**
 * Podman answers 500 "open /proc/PID/ns/mnt: no such file or directory" when a container's archive
 * is asked for just after it stopped, before its clean-up: asked again, it answers.
 */
const isStillStopping = (error: unknown) =>
  (error as { statusCode?: number }).statusCode === 500 && /\/proc\/\d+\/ns\//.test(String((error as Error).message));

const ignoreMissing = (error: unknown) => {
  if ((error as { statusCode?: number }).statusCode !== 404) throw error;
};

/**
 * The archive's first entry: /data itself, named data/ (Docker, and Podman for a running container) or / (Podman for a
 * stopped one).
 */
interface TopEntry {
  /** Its entries are data/...: unpacked into the volume's folder, that first part goes. */
  namedData: boolean;
  /** The folder's mode and owner, when the first entry is the folder. */
  folder?: { mode: number; uid: number; gid: number };
}

function topEntryOf(entries: TarEntry[]): TopEntry {
  const first = entries[0];
  const namedData = first !== undefined && (first.name === 'data' || first.name.startsWith('data/'));
  const isFolder = first?.kind === 'folder' && (first.name === '' || first.name === 'data');
  return { namedData, folder: isFolder ? { mode: first.mode, uid: first.uid, gid: first.gid } : undefined };
}

/** What the volume's folder holds once the archive is unpacked into it, by path relative to it. */
function unpackedEntries(entries: TarEntry[], top: TopEntry): Map<string, EntryKind> {
  const unpacked = new Map<string, EntryKind>();
  for (const { name, kind } of entries) {
    const path = top.namedData ? name.replace(/^data(?:\/|$)/, '') : name;
    if (path) unpacked.set(path, kind);
  }
  return unpacked;
}

/** The new (empty) volume's folder, when reglab can write it directly with the owners the containers see. */
async function writableFolderOf(runtime: DockerRuntime, docker: Docker, volume: string): Promise<string | undefined> {
  const folder = await runtime.volumeFolder(docker, volume);
  if (!folder) return undefined;
  // on another machine (a remote engine, a VM) the folder is not here, or not this new empty one
  const entries = await readdir(folder).catch(() => undefined);
  return entries?.length === 0 ? folder : undefined;
}

/**
 * Unpacks the archive into the volume's folder with the owners and modes it holds, as the engine
 * would; `over` data already there, what the archive does not hold is removed (see write-over.ts).
 */
export async function unpackInto(folder: string, archive: string, over = false): Promise<void> {
  const entries = await readTarEntries(archive);
  const top = topEntryOf(entries);
  if (over) await pruneTo(folder, unpackedEntries(entries, top));
  await run('tar', [
    '-x',
    ...(over ? ['--overwrite'] : []),
    '--numeric-owner',
    '--same-owner',
    '--same-permissions',
    '-f',
    archive,
    '-C',
    folder,
    ...(top.namedData ? ['--strip-components=1'] : []),
  ]);
  if (top.folder) {
    await chown(folder, top.folder.uid, top.folder.gid);
    await chmod(folder, top.folder.mode);
  }
}

async function unpackThroughHelper(
  runtime: DockerRuntime,
  docker: Docker,
  lab: LabState,
  service: ServiceState,
  labels: Record<string, string>,
  archive: string,
): Promise<void> {
  const helperName = `${containerName(lab.name, service.name)}-restore`;
  await docker.getContainer(helperName).remove({ force: true }).catch(ignoreMissing);
  const helper = await docker.createContainer({
    name: helperName,
    Image: runtime.imageFor(service.kind, kindDefinition(service.kind).image.id),
    Entrypoint: ['sleep', 'infinity'],
    Cmd: [],
    Labels: labels,
    HostConfig: { Binds: [`${volumeName(lab.name, service.name)}:${CONTAINER_DATA_DIR}`] },
  });
  try {
    await helper.start();
    await helper.putArchive(createReadStream(archive), {
      path: topEntryOf(await readTarEntries(archive)).namedData ? '/' : CONTAINER_DATA_DIR,
    });
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
      const archive = await retryWhile(() => container.getArchive({ path: CONTAINER_DATA_DIR }), isStillStopping, {
        timeoutMs: 5_000,
        intervalMs: 100,
      });
      await pipeline(archive, createWriteStream(file, { mode: 0o600 }));
      return (await stat(file)).size;
    },
    async hold(_lab, service) {
      if (options.helperOnly) return false;
      return service.handle !== undefined && (await runtime.hold(service.handle)) !== undefined;
    },
    async restore(lab, service, snapshotDir) {
      const archive = archiveOf(snapshotDir, service.name);
      const heldFolder = runtime.heldFolder(lab.name, service.name);
      if (heldFolder) return unpackInto(heldFolder, archive, true);
      const docker = await runtime.docker();
      const volume = volumeName(lab.name, service.name);
      const labels = { [LABELS.lab]: lab.name, [LABELS.service]: service.name, [LABELS.kind]: service.kind };
      await docker.getContainer(containerName(lab.name, service.name)).remove({ force: true }).catch(ignoreMissing);
      // the volume an earlier lab of this name left this service (kept by prepareLab) is written over
      const kept = options.helperOnly ? undefined : await runtime.keptVolumeFolder(docker, volume, labels);
      if (kept) return unpackInto(kept, archive, true);
      await runtime.removeVolume(docker, volume);
      await docker.createVolume({ Name: volume, Labels: labels });
      const folder = options.helperOnly ? undefined : await writableFolderOf(runtime, docker, volume);
      await (folder
        ? unpackInto(folder, archive)
        : unpackThroughHelper(runtime, docker, lab, service, labels, archive));
    },
  };
}
