import { appendFileSync, existsSync } from 'node:fs';
import { readdir, readFile, realpath } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import type Docker from 'dockerode';
import { waitFor } from '../../../../lib/wait.js';
import { RECIPES } from '../../images/catalog.js';
import type { ImageId, ImageRecipe } from '../../images/types.js';
import { buildImages, missingImageMessage, type ImageMap } from '../../images/build.js';
import {
  ImageUnavailableError,
  isEngineUnavailable,
  type EngineReach,
  type ExitStatus,
  type LabHandleInfo,
  type PrepareOptions,
  type Runtime,
  type RuntimeHandle,
  type ServiceLocation,
  type StartRequest,
} from '../types.js';
import { discoverEngine, onEachCall, socketOwnedByRoot, type DiscoveryOptions, type Engine } from './engine.js';
import { containerExit } from './exit-status.js';
import { watchContainerExits } from './exits.js';
import { labAddresses } from './addresses.js';
import { runsInContainer } from './local-process.js';
import { EngineReachRecord } from './reach.js';
import { containerSpec, LABELS, type ContainerSpec } from './container-spec.js';
import { CONTAINER_DATA_DIR, containerName, networkName, volumeName } from './placement.js';
import { HELD_MARKER, HOLD_SIGNAL, RESUME_SIGNAL, runsUnderRunner } from './runner.js';
import { StartQueue } from './start-queue.js';
import { demuxLogs, fileFromTar, readAll } from './streams.js';

export interface DockerRuntimeOptions {
  /** An engine client; found with discoverEngine() on first use when absent. */
  docker?: Docker;
  /** Where discoverEngine() looks (DOCKER_HOST, then the well-known sockets, unless given). */
  discovery?: DiscoveryOptions;
  /** The image for each kind (buildImages(...).images); the recipe a start request names otherwise. */
  images?: ImageMap;
  /** Seconds a container gets to stop after its stop signal before it is killed. */
  stopTimeoutSeconds?: number;
  /**
   * Build (or check the pins of) a kind's local image before starting it, so a lab needs no
   * separate `reglab images build`. Images named in `images` are never built.
   */
  buildImages?: boolean;
  /** The image recipes by id: RECIPES unless given (a test gives its images names of their own). */
  imageCatalog?: Record<ImageId, ImageRecipe>;
}

/** A container of a lab, as found from its labels (what a restarted control plane sees). */
export interface LabContainer {
  service: string;
  kind: string;
  containerId: string;
  running: boolean;
  /** Published host ports by container port ("18334/tcp" -> 49152). */
  hostPorts: Record<string, number>;
}

/** The engine's client, and its address when it was found rather than given. */
type FoundEngine = Pick<Engine, 'docker'> & { address?: string };

const notFound = (error: unknown) => (error as { statusCode?: number }).statusCode === 404;
const ignoreNotFound = (error: unknown) => {
  if (!notFound(error)) throw error;
};

/**
 * Runs each service of a lab as a container on the lab's own network, with its data in a named
 * volume, through any Docker Engine API (Docker, or Podman's compatible service).
 */
export class DockerRuntime implements Runtime {
  readonly name = 'docker' as const;
  private engine?: Promise<FoundEngine>;
  private readonly reach = new EngineReachRecord();
  /** Builds run one at a time: services of a lab start in parallel and share base images. */
  private builds: Promise<unknown> = Promise.resolve();
  /** Each image is built or checked once per runtime, so all services of a lab run the same build. */
  private readonly ensured = new Map<string, Promise<unknown>>();
  /** Containers whose service is held (see hold()), by container name. */
  private readonly held = new Map<string, { lab: string; id: string; launch: string; folder: string }>();
  /** One start per core at a time, of two at least; the others held back by their precedence. */
  private readonly starts = new StartQueue(Math.max(2, availableParallelism()));
  private rootful?: Promise<boolean>;
  /**
   * Each local volume's folder, asked once while the volume lasts: a starting lnd's probe reads its
   * credentials from there every 50 ms, and each inspect costs the engine as much as this process.
   */
  private readonly volumeFolders = new Map<string, string>();
  /**
   * The first process of each running container, where this machine sees it: whether a container
   * still runs is told from it, without asking the engine.
   */
  private readonly localPids = new Map<string, number>();
  /** The last ping of the engine by `isAlive`, and when it was sent. */
  private lastPing?: { at: number; done: Promise<void> };
  /** Each lab network's subnet and gateway, asked once. */
  private readonly subnets = new Map<string, Promise<{ Subnet?: string; Gateway?: string }>>();

  constructor(private readonly options: DockerRuntimeOptions = {}) {
    if (options.docker) this.engine = Promise.resolve(this.watched({ docker: options.docker }));
  }

  docker(): Promise<Docker> {
    return this.found().then((engine) => engine.docker);
  }

  private found(): Promise<FoundEngine> {
    // a failed search is not kept: the engine may be started after the control plane
    this.engine ??= discoverEngine(this.options.discovery).then(
      (engine) => this.watched(engine),
      (error: unknown) => {
        this.engine = undefined;
        this.reach.record(error);
        throw error;
      },
    );
    return this.engine;
  }

  private watched(engine: FoundEngine): FoundEngine {
    onEachCall(engine.docker, (error) => this.reach.record(error, engine.address));
    return engine;
  }

  engineReach(): EngineReach | undefined {
    return this.reach.current;
  }

  async checkEngine(): Promise<void> {
    await (await this.docker()).ping();
  }

  /** A ping of the engine at most once a second, its outcome recorded as every call's is; never throws. */
  private pingEngine(): Promise<void> {
    if (!this.lastPing || Date.now() - this.lastPing.at >= 1_000)
      this.lastPing = { at: Date.now(), done: this.checkEngine().catch(() => undefined) };
    return this.lastPing.done;
  }

  leftInEngine(lab: LabHandleInfo): string {
    const engine = this.reach.current?.address ?? 'the container engine';
    return `its containers, network and volumes on ${engine} (label ${LABELS.lab}=${lab.name}) stay there until a lab named ${lab.name} is brought up on that engine, which removes them first`;
  }

  imageFor(kind: string, recipe: ImageId): string {
    return this.options.images?.[kind] ?? (this.options.imageCatalog ?? RECIPES)[recipe].ref;
  }

  /** The lab's network, and its images built first: a build can take a minute, and the lab's
   * host ports are chosen after this. A lab starts anew: what an earlier lab of its name left
   * (its record lost with another REGLAB_HOME or a deleted .reglab) is removed first, volumes too,
   * so no node starts on an old wallet or chain; but those of `options.dataRestored`, which the
   * restore of a snapshot writes over (snapshots/docker-data.ts). */
  async prepareLab(
    lab: LabHandleInfo,
    images: Record<string, string> = {},
    options: PrepareOptions = {},
  ): Promise<void> {
    const docker = await this.docker();
    await this.removeLab(lab, { volumes: true, except: options.dataRestored });
    if (this.options.buildImages) {
      for (const [kind, recipe] of Object.entries(images)) {
        if (this.options.images?.[kind] !== undefined) continue;
        await this.build(docker, kind, recipe as ImageId, options.onProgress).catch((error: unknown) => {
          throw new ImageUnavailableError(kind, error instanceof Error ? error.message : String(error));
        });
      }
    }
    const name = networkName(lab.name);
    this.subnets.delete(name);
    try {
      await docker.getNetwork(name).inspect();
    } catch (error) {
      ignoreNotFound(error);
      await docker.createNetwork({ Name: name, Driver: 'bridge', Labels: { [LABELS.lab]: lab.name } });
    }
  }

  /**
   * Starts the service in a new container; or, when its container was held with the same launch,
   * runs the service again in that container.
   */
  start(request: StartRequest): Promise<RuntimeHandle> {
    return this.starts.run(request.precedence ?? Number.MAX_SAFE_INTEGER, () => this.startNow(request));
  }

  private async startNow(request: StartRequest): Promise<RuntimeHandle> {
    const docker = await this.docker();
    const spec = await this.specOf(docker, request);
    const resumed = await this.resume(docker, spec.name, spec.labels[LABELS.launch]);
    if (resumed) return resumed;
    // a container left from an earlier run of this service is replaced; its volume is kept
    await docker.getContainer(spec.name).remove({ force: true }).catch(ignoreNotFound);
    await this.ensureVolume(docker, spec.volume, spec.labels);
    const container = await docker.createContainer(spec.options);
    await container.start();
    recordInRegistry(container.id);
    // its process known from the start, a death while the engine is away is seen even before the first liveness
    // check; an engine gone meanwhile leaves that to the checks
    await this.askEngine(docker, container.id).catch(() => undefined);
    return { runtime: 'docker', containerId: container.id };
  }

  /**
   * Ends the service but keeps its container, network and ports, for a start() with the same
   * launch to run it again there (a reset: its data is replaced meanwhile, through the folder this
   * answers). Answers once the service has ended, with the container's data folder on this
   * machine; undefined when the container cannot be held (not running, made by an older reglab,
   * its volume not a folder reglab may write here), having done nothing, or when its service did
   * not end within the stop timeout, killed.
   */
  async hold(handle: RuntimeHandle): Promise<string | undefined> {
    const docker = await this.docker();
    const container = docker.getContainer(containerId(handle));
    const info = await container
      .inspect()
      .catch((error: unknown) => (notFound(error) ? undefined : Promise.reject(error)));
    const folder = info && dataFolderOf(info);
    if (!info?.State.Running || !runsUnderRunner(info.Config.Env) || !folder || !(await this.writesVolumeFolders()))
      return undefined;
    const marker = join(folder, HELD_MARKER);
    await container.kill({ signal: HOLD_SIGNAL });
    try {
      await waitFor(async () => existsSync(marker), {
        timeoutMs: (this.options.stopTimeoutSeconds ?? 15) * 1000,
        intervalMs: 20,
        what: `${info.Name} to end its service`,
      });
    } catch {
      await this.kill(handle); // as a container that cannot be held: ended for good
      return undefined;
    }
    this.held.set(info.Name.replace(/^\//, ''), {
      lab: info.Config.Labels[LABELS.lab],
      id: info.Id,
      launch: info.Config.Labels[LABELS.launch] ?? '',
      folder,
    });
    return folder;
  }

  /** The data folder of a held container, by its lab and service. */
  heldFolder(lab: string, service: string): string | undefined {
    return this.held.get(containerName(lab, service))?.folder;
  }

  /** What the container of `request` is created with, its image checked (and built when asked). */
  private async specOf(docker: Docker, request: StartRequest): Promise<ContainerSpec> {
    const { service, kind } = request;
    const recipe = request.image as ImageId;
    const image = this.imageFor(kind, recipe);
    if (this.options.buildImages && this.options.images?.[kind] === undefined) await this.build(docker, kind, recipe);
    const imageInfo = await docker
      .getImage(image)
      .inspect()
      .catch((error: unknown) => {
        throw notFound(error) ? new Error(`cannot start ${service} (${kind}): ${missingImageMessage(image)}`) : error;
      });
    const entrypoint = imageInfo.Config.Entrypoint ?? [];
    return containerSpec(
      request,
      {
        ref: image,
        id: imageInfo.Id,
        entrypoint: typeof entrypoint === 'string' ? ['/bin/sh', '-c', entrypoint] : entrypoint,
      },
      await this.addressesOf(docker, request),
    );
  }

  /** Runs a held container's service again, when the container was created for this same launch. */
  private async resume(docker: Docker, name: string, launch: string): Promise<RuntimeHandle | undefined> {
    const held = this.held.get(name);
    if (!held) return undefined;
    this.held.delete(name);
    if (held.launch !== launch) return undefined;
    try {
      await docker.getContainer(held.id).kill({ signal: RESUME_SIGNAL });
      return { runtime: 'docker', containerId: held.id };
    } catch {
      return undefined; // it ended while held: a new container replaces it
    }
  }

  /** The fixed address of every service of the lab on its network (see addresses.ts), when the request names them. */
  private async addressesOf(docker: Docker, request: StartRequest): Promise<Map<string, string> | undefined> {
    if (!request.labServices) return undefined;
    const network = networkName(request.lab.name);
    let ipam = this.subnets.get(network);
    if (!ipam) {
      ipam = docker
        .getNetwork(network)
        .inspect()
        .then((info: { IPAM?: { Config?: { Subnet?: string; Gateway?: string }[] } }) => info.IPAM?.Config?.[0] ?? {});
      ipam.catch(() => this.subnets.delete(network));
      this.subnets.set(network, ipam);
    }
    const { Subnet, Gateway } = await ipam;
    return Subnet ? labAddresses(Subnet, Gateway, request.labServices) : undefined;
  }

  /**
   * Whether reglab can write a local volume's folder itself with the owners its containers see: as root, on a rootful
   * engine.
   */
  writesVolumeFolders(): Promise<boolean> {
    if (process.getuid?.() !== 0) return Promise.resolve(false);
    this.rootful ??= this.found().then(async ({ docker, address }) => {
      if (address !== undefined && (await socketOwnedByRoot(address))) return true;
      const info: { SecurityOptions?: string[] } = await docker.info();
      return !(info.SecurityOptions ?? []).some((option) => option.includes('name=rootless'));
    });
    return this.rootful;
  }

  async stop(handle: RuntimeHandle): Promise<void> {
    // The container stops with the StopSignal set from its LaunchSpec when it was created.
    const docker = await this.docker();
    try {
      await docker.getContainer(containerId(handle)).stop({ t: this.options.stopTimeoutSeconds ?? 15 });
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status !== 304 && status !== 404) throw error; // 304: already stopped
    }
  }

  async kill(handle: RuntimeHandle): Promise<void> {
    const docker = await this.docker();
    try {
      await docker.getContainer(containerId(handle)).kill({ signal: 'SIGKILL' });
    } catch (error) {
      // a container that is not running is killed already (Docker answers 409, Podman 500 "container state improper")
      if (await this.isAlive(handle)) throw error;
    }
  }

  async exitStatus(handle: RuntimeHandle): Promise<ExitStatus | undefined> {
    const docker = await this.docker();
    try {
      const state = (await docker.getContainer(containerId(handle)).inspect()).State;
      return state.Running ? undefined : containerExit(state.ExitCode, state.OOMKilled);
    } catch (error) {
      ignoreNotFound(error);
      return undefined;
    }
  }

  /** The engine's events tell the death of a lab's container as it happens (the supervisor polls too). */
  watchExits(lab: LabHandleInfo, onExit: () => void): () => void {
    return watchContainerExits(() => this.docker(), `${LABELS.lab}=${lab.name}`, onExit);
  }

  /**
   * A container whose main process this machine sees, still in the container's cgroup, runs: the
   * supervisor asks every two seconds for each service, and an inspect of each costs the engine
   * (Podman's API service) CPU of its own; one ping a second still tells whether the engine answers.
   * Otherwise, and once that process is gone, the engine says.
   */
  async isAlive(handle: RuntimeHandle): Promise<boolean> {
    const id = containerId(handle);
    const seen = this.localPids.get(id);
    if (seen !== undefined && (await runsInContainer(seen, id))) {
      await this.pingEngine();
      return true;
    }
    try {
      return await this.askEngine(await this.docker(), id);
    } catch (error) {
      const pid = this.localPids.get(id);
      // a service killed while the engine is away is seen dead at once, not only when its probe fails
      if (isEngineUnavailable(error) && pid !== undefined) return runsInContainer(pid, id);
      ignoreNotFound(error);
      this.localPids.delete(id);
      return false;
    }
  }

  /** Whether the engine says container `id` runs; the process it names is kept where this machine sees it. */
  private async askEngine(docker: Docker, id: string): Promise<boolean> {
    const { State } = await docker.getContainer(id).inspect();
    if (!State.Running) this.localPids.delete(id);
    else if (State.Pid && this.localPids.get(id) !== State.Pid && (await runsInContainer(State.Pid, id)))
      this.localPids.set(id, State.Pid);
    return State.Running;
  }

  async readServiceFile(location: ServiceLocation, relativePath: string): Promise<Buffer> {
    const docker = await this.docker();
    const path = `${CONTAINER_DATA_DIR}/${relativePath.replace(/^\/+/, '')}`;
    const missing = () => new Error(`${location.service} has no file ${path} (yet) in lab ${location.lab.name}`);
    const local = await this.readFromVolumeFolder(docker, location, relativePath);
    if (local === 'missing') throw missing();
    if (local) return local;
    try {
      const archive = await docker
        .getContainer(containerName(location.lab.name, location.service))
        .getArchive({ path });
      return fileFromTar(await readAll(archive), basename(path));
    } catch (error) {
      if (notFound(error)) throw missing();
      throw error;
    }
  }

  /**
   * A file of the service's volume read where it lies, when its folder is on this machine and ours
   * to read: the engine's archive route starts a helper process at each call (with Podman), and a
   * lab's probes read lnd's credentials at each attempt. Undefined when it cannot be
   * read so (a symbolic link out of the volume included), for the archive route to answer.
   */
  private async readFromVolumeFolder(
    docker: Docker,
    location: ServiceLocation,
    relativePath: string,
  ): Promise<Buffer | 'missing' | undefined> {
    const mountpoint = await this.volumeFolder(docker, volumeName(location.lab.name, location.service));
    if (!mountpoint) return undefined;
    let folder: string;
    let file: string;
    try {
      folder = await realpath(mountpoint);
      file = await realpath(join(folder, relativePath));
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' && existsSync(mountpoint) ? 'missing' : undefined;
    }
    return file.startsWith(`${folder}/`) ? readFile(file).catch(() => undefined) : undefined;
  }

  /** A volume's folder, when it is a local one reglab may read and write itself (writesVolumeFolders). */
  async volumeFolder(docker: Docker, volume: string): Promise<string | undefined> {
    if (!(await this.writesVolumeFolders())) return undefined;
    const known = this.volumeFolders.get(volume);
    if (known) return known;
    const folder = (await this.localVolume(docker, volume))?.Mountpoint;
    if (folder) this.volumeFolders.set(volume, folder);
    return folder;
  }

  /** The volume as the engine describes it, when it is a `local` one with a folder. */
  private async localVolume(docker: Docker, volume: string): Promise<Docker.VolumeInspectInfo | undefined> {
    const info = await docker
      .getVolume(volume)
      .inspect()
      .catch(() => undefined);
    return info?.Driver === 'local' && info.Mountpoint ? info : undefined;
  }

  /**
   * The folder of a volume that exists with all these labels (one a lab of the same name left its
   * service of the same kind), when it is ours to write (see volumeFolder) and on this machine.
   */
  async keptVolumeFolder(docker: Docker, volume: string, labels: Record<string, string>): Promise<string | undefined> {
    if (!(await this.writesVolumeFolders())) return undefined;
    const info = await this.localVolume(docker, volume);
    if (!info) return undefined;
    if (!Object.entries(labels).every(([label, value]) => info.Labels?.[label] === value)) return undefined;
    // a remote engine's folder is not on this machine
    if (
      !(await readdir(info.Mountpoint).then(
        () => true,
        () => false,
      ))
    )
      return undefined;
    this.volumeFolders.set(volume, info.Mountpoint);
    return info.Mountpoint;
  }

  /** Removes the volume, if there is one by that name. */
  async removeVolume(docker: Docker, volume: string): Promise<void> {
    this.volumeFolders.delete(volume);
    await docker.getVolume(volume).remove().catch(ignoreNotFound);
  }

  async logs(location: ServiceLocation, handle: RuntimeHandle | undefined, lines: number): Promise<string> {
    const docker = await this.docker();
    const target = handle ? containerId(handle) : containerName(location.lab.name, location.service);
    try {
      const output = await docker.getContainer(target).logs({ stdout: true, stderr: true, follow: false, tail: lines });
      return demuxLogs(Buffer.isBuffer(output) ? output : Buffer.from(String(output)));
    } catch (error) {
      ignoreNotFound(error);
      return '';
    }
  }

  /** The lab's containers, found by their labels. */
  async findContainers(lab: string): Promise<LabContainer[]> {
    const docker = await this.docker();
    const found = await docker.listContainers({ all: true, filters: { label: [`${LABELS.lab}=${lab}`] } });
    return found.map((info) => ({
      service: info.Labels[LABELS.service],
      kind: info.Labels[LABELS.kind],
      containerId: info.Id,
      running: info.State === 'running',
      hostPorts: Object.fromEntries(
        info.Ports.filter((port) => port.PublicPort).map((port) => [
          `${port.PrivatePort}/${port.Type}`,
          port.PublicPort,
        ]),
      ),
    }));
  }

  /**
   * Removes the lab's containers and network, and with `volumes` its volumes, but those of the services `except` names.
   */
  async removeLab(lab: LabHandleInfo, options: { volumes: boolean; except?: readonly string[] }): Promise<string[]> {
    const docker = await this.docker();
    for (const [name, held] of this.held) if (held.lab === lab.name) this.held.delete(name);
    for (const container of await this.findContainers(lab.name)) {
      await docker.getContainer(container.containerId).remove({ force: true }).catch(ignoreNotFound);
    }
    const detached = await this.detachOthers(docker, networkName(lab.name));
    await docker.getNetwork(networkName(lab.name)).remove().catch(ignoreNotFound);
    this.subnets.delete(networkName(lab.name));
    if (options.volumes) {
      const { Volumes } = await docker.listVolumes({ filters: { label: [`${LABELS.lab}=${lab.name}`] } });
      for (const volume of Volumes ?? []) {
        if (!options.except?.includes(volume.Labels?.[LABELS.service] ?? ''))
          await this.removeVolume(docker, volume.Name);
      }
    }
    return detached;
  }

  /**
   * Disconnects from the network the containers still on it once the lab's own are removed: an
   * engine refuses to remove a network in use (Podman even when those containers have stopped).
   */
  private async detachOthers(docker: Docker, name: string): Promise<string[]> {
    const network = docker.getNetwork(name);
    const info: { Containers?: Record<string, { Name?: string }> } | undefined = await network
      .inspect()
      .catch((error: unknown) => (notFound(error) ? undefined : Promise.reject(error)));
    const others = Object.entries(info?.Containers ?? {});
    for (const [id] of others) await network.disconnect({ Container: id, Force: true }).catch(ignoreNotFound);
    return others.map(([id, container]) => container.Name || id.slice(0, 12));
  }

  /** Builds the image, or finds it up to date; `onProgress` hears the work of the caller that asks first. */
  private build(docker: Docker, kind: string, image: ImageId, onProgress?: (line: string) => void): Promise<unknown> {
    let ensured = this.ensured.get(image);
    if (!ensured) {
      const run = () =>
        buildImages({
          docker,
          images: { [kind]: image },
          onProgress,
          reportUpToDate: false,
          catalog: this.options.imageCatalog,
        });
      ensured = this.builds = this.builds.then(run, run);
      ensured.catch(() => this.ensured.delete(image));
      this.ensured.set(image, ensured);
    }
    return ensured;
  }

  private async ensureVolume(docker: Docker, name: string, labels: Record<string, string>): Promise<void> {
    try {
      await docker.getVolume(name).inspect();
    } catch (error) {
      ignoreNotFound(error);
      await docker.createVolume({ Name: name, Labels: labels });
    }
  }
}

export function createDockerRuntime(options: DockerRuntimeOptions = {}): DockerRuntime {
  return new DockerRuntime(options);
}

/** With REGLAB_PROCESS_REGISTRY set (the test run sets it), containers are recorded for its cleanup. */
function recordInRegistry(id: string): void {
  const registry = process.env.REGLAB_PROCESS_REGISTRY;
  if (registry) appendFileSync(join(registry, 'containers'), `${id}\n`);
}

function containerId(handle: RuntimeHandle): string {
  if (handle.runtime !== 'docker') throw new Error(`the docker runtime cannot handle a ${handle.runtime} handle`);
  return handle.containerId;
}

/** The container's volume folder on this machine, when it is a local volume whose folder is here. */
function dataFolderOf(info: Docker.ContainerInspectInfo): string | undefined {
  const mount = info.Mounts.find(
    (candidate) => candidate.Destination === CONTAINER_DATA_DIR && candidate.Type === 'volume',
  );
  return mount?.Driver === 'local' && existsSync(mount.Source) ? mount.Source : undefined;
}
