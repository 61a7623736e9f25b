import { containerPlacement } from '../container-placement.js';
import type { LabLayout, Placement } from '../types.js';

export { CONTAINER_DATA_DIR } from '../container-placement.js';

export const networkName = (lab: string) => `reglab-${lab}`;
export const containerName = (lab: string, service: string) => `reglab-${lab}-${service}`;
export const volumeName = (lab: string, service: string) => `reglab-${lab}-${service}`;

/**
 * How a service sees the world in a docker lab (container-placement.ts): each container has a
 * fixed address on its lab's own network, finds every service's in its /etc/hosts (addresses.ts),
 * is aliased by its service name in the engine's DNS as well, and carries it as hostname. What this
 * machine sends it comes from the network's gateway (the engine rewrites the source).
 */
export const dockerPlacement = (lab: LabLayout, service: string): Placement =>
  containerPlacement(lab, service, 'gateway');
