import type { LabLayout, Placement } from './types.js';

/** Every container of a lab (docker or kubernetes) has its data folder here. */
export const CONTAINER_DATA_DIR = '/data';

/**
 * How a service sees the world in a container runtime: it listens on all interfaces of its
 * container on its kind's fixed ports, keeps its data at /data, and reaches the other services of
 * the lab by service name (docker: its lab network's /etc/hosts and aliases; kubernetes: each
 * service's Service in the lab's namespace). The name is also its hostname, so the certificates
 * btcd and lnd generate name it too.
 */
export function containerPlacement(lab: LabLayout, service: string, hostPeer: Placement['hostPeer']): Placement {
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
    hostPeer,
  };
}
