import { createHash } from 'node:crypto';
import type { ContainerCreateOptions } from 'dockerode';
import { commandAfterEntrypoint } from '../container-command.js';
import type { StartRequest } from '../types.js';
import { macAddressOf } from './addresses.js';
import { CONTAINER_DATA_DIR, containerName, networkName, volumeName } from './placement.js';
import { runnerEntrypoint } from './runner.js';

/** `launch`: a digest of what the container is created with, so a held one is resumed only for the same launch. */
export const LABELS = {
  lab: 'reglab.lab',
  service: 'reglab.service',
  kind: 'reglab.kind',
  launch: 'reglab.launch',
} as const;

export interface ContainerSpec {
  name: string;
  volume: string;
  labels: Record<string, string>;
  options: ContainerCreateOptions;
}

/** The image a container runs: its reference, its id and its entry point. */
export interface ImageOf {
  ref: string;
  id: string;
  entrypoint: string[];
}

/**
 * The container that runs a service: on its lab's network (at its fixed address, with the MAC
 * address made from it, when `addresses` holds the lab's), its data in its volume at /data, its ports published on the
 * host, the service under the runner (runner.ts) after the engine's init.
 */
export function containerSpec(
  request: StartRequest,
  image: ImageOf,
  addresses: Map<string, string> | undefined,
): ContainerSpec {
  const { lab, service, kind } = request;
  const name = containerName(lab.name, service);
  const volume = volumeName(lab.name, service);
  const network = networkName(lab.name);
  const labels: Record<string, string> = { [LABELS.lab]: lab.name, [LABELS.service]: service, [LABELS.kind]: kind };
  const ports = Object.entries(request.hostPorts).map(
    ([portName, hostPort]) => [`${containerPortOf(request, portName)}/tcp`, hostPort] as const,
  );
  if (request.reroutes && !addresses)
    throw new Error(
      `cannot start ${service}: its links go through the lab's network proxy, which needs every container at a fixed address, and the lab network ${networkName(lab.name)} has no IPv4 subnet to give them`,
    );
  const address = addresses?.get(service);
  const runner = runnerEntrypoint(
    [...image.entrypoint, ...commandAfterEntrypoint(request.launch)],
    request.discardSignal ?? 'SIGKILL',
  );
  const options: ContainerCreateOptions = {
    name,
    Hostname: service,
    Image: image.ref,
    Entrypoint: runner.Entrypoint,
    Cmd: [],
    Env: [...Object.entries(request.launch.env).map(([key, value]) => `${key}=${value}`), runner.env],
    Labels: labels,
    ExposedPorts: Object.fromEntries(ports.map(([port]) => [port, {}])),
    ...(request.launch.stopSignal ? { StopSignal: request.launch.stopSignal } : {}),
    HostConfig: {
      Init: true,
      Binds: [`${volume}:${CONTAINER_DATA_DIR}`],
      PortBindings: Object.fromEntries(
        ports.map(([port, hostPort]) => [
          port,
          [{ HostIp: request.public ? '0.0.0.0' : '127.0.0.1', HostPort: String(hostPort) }],
        ]),
      ),
      NetworkMode: network,
      ...(addresses ? { ExtraHosts: extraHosts(addresses, request.reroutes) } : {}),
    },
    NetworkingConfig: {
      EndpointsConfig: {
        [network]: {
          Aliases: [service],
          ...(address ? { IPAMConfig: { IPv4Address: address }, MacAddress: macAddressOf(address) } : {}),
        },
      },
    },
  };
  labels[LABELS.launch] = createHash('sha256')
    .update(`${image.id}\n${JSON.stringify(options)}`)
    .digest('hex');
  return { name, volume, labels, options };
}

/** Each service's name with its address, or with the address of the service it is rerouted to. */
function extraHosts(addresses: Map<string, string>, reroutes: Record<string, string> = {}): string[] {
  return [...addresses].map(([other, address]) => `${other}:${addresses.get(reroutes[other] ?? other) ?? address}`);
}

function containerPortOf(request: StartRequest, portName: string): number {
  const port = request.containerPorts[portName];
  if (port === undefined)
    throw new Error(
      `a ${request.kind} container has no port named "${portName}" (known: ${Object.keys(request.containerPorts).join(', ')})`,
    );
  return port;
}
