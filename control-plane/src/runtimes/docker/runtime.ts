import { appendFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type Docker from 'dockerode';
import { RECIPES } from '../../images/catalog.js';
import type { ImageId } from '../../images/types.js';
import { buildImages, missingImageMessage, type ImageMap } from '../../images/build.js';
import { ImageUnavailableError, type ExitStatus, type LabHandleInfo, type LaunchSpec, type Runtime, type RuntimeHandle, type ServiceLocation, type StartRequest } from '../types.js';
import { discoverEngine } from './engine.js';
import { containerExit } from './exit-status.js';
import { watchContainerExits } from './exits.js';
import { CONTAINER_DATA_DIR, containerName, networkName, volumeName } from './placement.js';
import { demuxLogs, fileFromTar, readAll } from './streams.js';

export const LABELS = { lab: 'reglab.lab', service: 'reglab.service', kind: 'reglab.kind' } as const;

/** Where the project's compiled services live in the services image. */
const SERVICES_APP_DIR = '/app';

export interface DockerRuntimeOptions {
  /** An engine client; found with discoverEngine() on first use when absent. */
  docker?: Docker;
  /** The image for each kind (buildImages(...).images); the recipe a start request names otherwise. */
  images?: ImageMap;
  /** Seconds a container gets to stop after its stop signal before it is killed. */
  stopTimeoutSeconds?: number;
  /**
   * Build (or check the pins of) a kind's local image before starting it, so a lab needs no
   * separate `reglab images build`. Images named in `images` are never built.
   */
  buildImages?: boolean;
  /** Build output, when buildImages builds something. */
  onBuildProgress?: (line: string) => void;
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
  private client?: Promise<Docker>;
  /** Builds run one at a time: services of a lab start in parallel and share base images. */
  private builds: Promise<unknown> = Promise.resolve();
  /** Each image is built or checked once per runtime, so all services of a lab run the same build. */
  private readonly ensured = new Map<string, Promise<unknown>>();

  constructor(private readonly options: DockerRuntimeOptions = {}) {
    if (options.docker) this.client = Promise.resolve(options.docker);
  }

  docker(): Promise<Docker> {
    this.client ??= discoverEngine().then((engine) => engine.docker);
    return this.client;
  }

  imageFor(kind: string, recipe: ImageId): string {
    return this.options.images?.[kind] ?? RECIPES[recipe].ref;
  }

  /** The lab's network, and its images built first: a build can take a minute, and the lab's
   * host ports are chosen after this. A lab starts anew: what an earlier lab of its name left
   * (its record lost with another REGLAB_HOME or a deleted .reglab) is removed first, volumes too,
   * so no node starts on an old wallet or chain. */
  async prepareLab(lab: LabHandleInfo, images: Record<string, string> = {}): Promise<void> {
    const docker = await this.docker();
    await this.removeLab(lab, { volumes: true });
    if (this.options.buildImages) {
      for (const [kind, recipe] of Object.entries(images)) {
        if (this.options.images?.[kind] !== undefined) continue;
        await this.build(docker, kind, recipe as ImageId).catch((error: unknown) => {
          throw new ImageUnavailableError(kind, error instanceof Error ? error.message : String(error));
        });
      }
    }
    const name = networkName(lab.name);
    try {
      await docker.getNetwork(name).inspect();
    } catch (error) {
      ignoreNotFound(error);
      await docker.createNetwork({ Name: name, Driver: 'bridge', Labels: { [LABELS.lab]: lab.name } });
    }
  }

  async start(request: StartRequest): Promise<RuntimeHandle> {
    const docker = await this.docker();
    const { lab, service, kind } = request;
    const recipe = request.image as ImageId;
    const image = this.imageFor(kind, recipe);
    if (this.options.buildImages && this.options.images?.[kind] === undefined) await this.build(docker, kind, recipe);
    await docker.getImage(image).inspect().catch((error: unknown) => {
      throw notFound(error) ? new Error(`cannot start ${service} (${kind}): ${missingImageMessage(image)}`) : error;
    });
    const name = containerName(lab.name, service);
    // A container left from an earlier run of this service is replaced; its volume is kept.
    await docker.getContainer(name).remove({ force: true }).catch(ignoreNotFound);
    const labels = { [LABELS.lab]: lab.name, [LABELS.service]: service, [LABELS.kind]: kind };
    const volume = volumeName(lab.name, service);
    await this.ensureVolume(docker, volume, labels);
    const ports = Object.entries(request.hostPorts).map(([portName, hostPort]) => [`${containerPortOf(request, portName)}/tcp`, hostPort] as const);
    const network = networkName(lab.name);
    const container = await docker.createContainer({
      name,
      Hostname: service,
      Image: image,
      Cmd: command(request.launch),
      Env: Object.entries(request.launch.env).map(([key, value]) => `${key}=${value}`),
      Labels: labels,
      ExposedPorts: Object.fromEntries(ports.map(([port]) => [port, {}])),
      ...(request.launch.stopSignal ? { StopSignal: request.launch.stopSignal } : {}),
      HostConfig: {
        Init: true,
        Binds: [`${volume}:${CONTAINER_DATA_DIR}`],
        PortBindings: Object.fromEntries(ports.map(([port, hostPort]) => [port, [{ HostIp: request.public ? '0.0.0.0' : '127.0.0.1', HostPort: String(hostPort) }]])),
        NetworkMode: network,
      },
      NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [service] } } },
    });
    await container.start();
    recordInRegistry(container.id);
    return { runtime: 'docker', containerId: container.id };
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

  async isAlive(handle: RuntimeHandle): Promise<boolean> {
    const docker = await this.docker();
    try {
      return (await docker.getContainer(containerId(handle)).inspect()).State.Running;
    } catch (error) {
      ignoreNotFound(error);
      return false;
    }
  }

  async readServiceFile(location: ServiceLocation, relativePath: string): Promise<Buffer> {
    const docker = await this.docker();
    const path = `${CONTAINER_DATA_DIR}/${relativePath.replace(/^\/+/, '')}`;
    try {
      const archive = await docker.getContainer(containerName(location.lab.name, location.service)).getArchive({ path });
      return fileFromTar(await readAll(archive), basename(path));
    } catch (error) {
      if (notFound(error)) throw new Error(`${location.service} has no file ${path} (yet) in lab ${location.lab.name}`);
      throw error;
    }
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
      hostPorts: Object.fromEntries(info.Ports.filter((port) => port.PublicPort).map((port) => [`${port.PrivatePort}/${port.Type}`, port.PublicPort])),
    }));
  }

  async removeLab(lab: LabHandleInfo, options: { volumes: boolean }): Promise<void> {
    const docker = await this.docker();
    for (const container of await this.findContainers(lab.name)) {
      await docker.getContainer(container.containerId).remove({ force: true }).catch(ignoreNotFound);
    }
    await docker.getNetwork(networkName(lab.name)).remove().catch(ignoreNotFound);
    if (!options.volumes) return;
    const { Volumes } = await docker.listVolumes({ filters: { label: [`${LABELS.lab}=${lab.name}`] } });
    for (const volume of Volumes ?? []) await docker.getVolume(volume.Name).remove().catch(ignoreNotFound);
  }

  private build(docker: Docker, kind: string, image: ImageId): Promise<unknown> {
    let ensured = this.ensured.get(image);
    if (!ensured) {
      const run = () => buildImages({ docker, images: { [kind]: image }, onProgress: this.options.onBuildProgress });
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

function containerPortOf(request: StartRequest, portName: string): number {
  const port = request.containerPorts[portName];
  if (port === undefined) throw new Error(`a ${request.kind} container has no port named "${portName}" (known: ${Object.keys(request.containerPorts).join(', ')})`);
  return port;
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

/** The image's entry point is the program; a project service is its compiled file under /app/dist. */
function command(launch: LaunchSpec): string[] {
  if (launch.program.type === 'service') return [...launch.program.nodeFlags, `${SERVICES_APP_DIR}/dist/${launch.program.entry}`, ...launch.args];
  return launch.args;
}
