// Real Podman (or Docker) for the docker-runtime tests: the engine must answer, else the tests
// fail with how to start it. Lab names are unique per run so leftovers never collide.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { discoverEngine } from '../../control-plane/src/runtimes/docker/engine.js';
import type { ServiceKind } from '../../control-plane/src/nodes/kinds.js';
import { imageRecipesFor, kindDefinition } from '../../control-plane/src/nodes/registry.js';
import type { LabLayout, LaunchSpec, StartRequest } from '../../control-plane/src/runtimes/types.js';

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
  const networks = (await docker.listNetworks()).filter((network) => network.Name === `reglab-${lab}` || network.Labels?.['reglab.lab'] === lab);
  const volumes = (await docker.listVolumes({ filters })).Volumes ?? [];
  return { containers: containers.map((c) => c.Names[0]), networks: networks.map((n) => n.Name), volumes: volumes.map((v) => v.Name) };
}

/** A lab layout for placements, from the kinds its services run. */
export function layoutOf(lab: { name: string; dir: string }, kinds: Record<string, ServiceKind>): LabLayout {
  return { ...lab, services: Object.fromEntries(Object.entries(kinds).map(([service, kind]) => [service, { hostPorts: {}, containerPorts: kindDefinition(kind).ports }])) };
}

/** What the planner would ask the runtime, for one service of a test lab. */
export function startRequest(lab: { name: string; dir: string }, service: string, kind: ServiceKind, launch: LaunchSpec, hostPorts: Record<string, number>): StartRequest {
  const definition = kindDefinition(kind);
  return { lab, service, kind, image: definition.image, launch, hostPorts, containerPorts: definition.ports };
}

/** The image recipes of kinds, for buildImages. */
export const recipesOf = (...kinds: ServiceKind[]) => imageRecipesFor(kinds, 'local');
