// Real Podman (or Docker) for the docker-runtime tests: the engine must answer, else the tests
// fail with how to start it. Lab names are unique per run so leftovers never collide.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { stringify } from 'yaml';
import { bringUp, newLabState } from '../../control-plane/src/lab/bring-up.js';
import type { LabEventListener } from '../../control-plane/src/lab/events.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { tearDown } from '../../control-plane/src/lab/tear-down.js';
import type { ServiceKind } from '../../control-plane/src/nodes/registry.js';
import { imageRecipesFor, kindDefinition } from '../../control-plane/src/nodes/registry.js';
import { buildImages } from '../../control-plane/src/images/build.js';
import { discoverEngine } from '../../control-plane/src/runtimes/docker/engine.js';
import { createDockerRuntime, type DockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { dockerRuntimeOptions } from '../../control-plane/src/runtimes/docker/host.js';
import type { LabLayout, LaunchSpec, RuntimeOptions, StartRequest } from '../../control-plane/src/runtimes/types.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

// testcontainers on Podman: no Ryuk (its image cannot be pulled) and localhost, not the bridge
// gateway (these VMs have /.dockerenv).
process.env.DOCKER_HOST ??= 'unix:///run/podman/podman.sock';
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
process.env.TESTCONTAINERS_HOST_OVERRIDE ??= 'localhost';

export async function engine(): Promise<Docker> {
  return (await discoverEngine()).docker;
}

export const uniqueLab = (prefix: string) => `t${prefix}${randomBytes(3).toString('hex')}`;

/** Every container, network and volume still labelled with the lab's name. */
export async function labLeftovers(docker: Docker, lab: string) {
  const filters = { label: [`reglab.lab=${lab}`] };
  const containers = await docker.listContainers({ all: true, filters });
  const networks = (await docker.listNetworks()).filter(
    (network) => network.Name === `reglab-${lab}` || network.Labels?.['reglab.lab'] === lab,
  );
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  return {
    containers: containers.map((c) => c.Names[0]),
    networks: networks.map((n) => n.Name),
    volumes: volumes.map((v) => v.Name),
  };
}

/** A lab layout for placements, from the kinds its services run. */
export function layoutOf(lab: { name: string; dir: string }, kinds: Record<string, ServiceKind>): LabLayout {
  return {
    ...lab,
    services: Object.fromEntries(
      Object.entries(kinds).map(([service, kind]) => [
        service,
        { hostPorts: {}, containerPorts: kindDefinition(kind).ports },
      ]),
    ),
  };
}

/** What the planner would ask the runtime, for one service of a test lab. */
export function startRequest(
  lab: { name: string; dir: string },
  service: string,
  kind: ServiceKind,
  launch: LaunchSpec,
  hostPorts: Record<string, number>,
): StartRequest {
  const definition = kindDefinition(kind);
  return { lab, service, kind, image: definition.image.id, launch, hostPorts, containerPorts: definition.ports };
}

/** The image recipes of kinds, for buildImages. */
export const recipesOf = (...kinds: ServiceKind[]) => imageRecipesFor(kinds, 'local');

/** A docker runtime with the Redis image built, lab `lab` prepared (its network), and a free host port for it. */
export async function redisRuntime(lab: {
  name: string;
  dir: string;
}): Promise<{ docker: Docker; runtime: DockerRuntime; hostPort: number }> {
  const docker = await engine();
  const { images } = await buildImages({ docker, images: recipesOf('redis') });
  const runtime = createDockerRuntime({ docker, images });
  await runtime.prepareLab(lab);
  return { docker, runtime, hostPort: await freePort() };
}

export interface DockerLab {
  lab: LabState;
  session: LabSession;
  runtimeOptions: RuntimeOptions;
  /** Closes the session, tears the lab down with its volumes and removes its folder; may be called again. */
  stop(): Promise<void>;
}

/**
 * A lab of `spec` (lab.yaml's keys; the runtime is docker) brought up by the lab's own bring-up in a
 * temp folder, as `reglab up` brings it up; torn down again when the bring-up fails halfway.
 */
export async function startDockerLab(
  spec: { name: string } & Record<string, unknown>,
  options: { onEvent?: LabEventListener } = {},
): Promise<DockerLab> {
  const runtimeOptions = dockerRuntimeOptions();
  const dir = mkdtempSync(join(tmpdir(), `reglab-docker-${spec.name}-`));
  const yaml = stringify({ runtime: 'docker', ...spec });
  const lab = newLabState(parseLabSpec(yaml, `${spec.name}.yaml`), yaml, join(dir, 'lab'));
  let session: LabSession | undefined;
  const stop = async () => {
    session?.close();
    await tearDown(lab, runtimeOptions.runtime, { volumes: true });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    session = await bringUp(lab, {
      runtimeOptions,
      onEvent: options.onEvent ?? (() => undefined),
      persist: async () => undefined,
      readyTimeoutMs: 120_000,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { lab, session, runtimeOptions, stop };
}
