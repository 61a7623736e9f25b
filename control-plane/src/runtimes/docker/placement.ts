import type { LabLayout, Placement } from '../types.js';

/** Every container of a docker lab mounts its volume here. */
export const CONTAINER_DATA_DIR = '/data';

export const networkName = (lab: string) => `reglab-${lab}`;
export const containerName = (lab: string, service: string) => `reglab-${lab}-${service}`;
export const volumeName = (lab: string, service: string) => `reglab-${lab}-${service}`;

/**
 * How a service sees the world in a docker lab: it listens on all interfaces of its container on
 * its kind's fixed ports, keeps its data in the volume at /data, and reaches the other services
 * of the lab by service name: each container has a fixed address on its lab's own network, finds
 * every service's in its /etc/hosts (addresses.ts), is aliased by its service name in the engine's
 * DNS as well, and carries it as hostname, so the certificates btcd and lnd generate name it too.
 */
export function dockerPlacement(lab: LabLayout, service: string): Placement {
  const portOf = (target: string, portName: string) => {
    const ports = lab.services[target]?.containerPorts;
    if (ports === undefined) throw new Error(`lab ${lab.name} has no service "${target}"`);
    const port = ports[portName];
    if (port === undefined)
      throw new Error(
        `the ${target} container has no port named "${portName}" (known: ${Object.keys(ports).join(', ')})`,
      );
    return port;
  };
  return {
    listenHost: '0.0.0.0',
    port: (name) => portOf(service, name),
    dataDir: CONTAINER_DATA_DIR,
    reach: (target, portName) => `${target}:${portOf(target, portName)}`,
    hostPeer: 'gateway',
  };
}
