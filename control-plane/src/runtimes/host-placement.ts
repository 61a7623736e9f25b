import type { Placement } from '../kinds/types.js';
import { hostPortsByService, type LabState } from '../lab/state.js';

/**
 * How this machine (the control plane, the CLI, tests) reaches a lab's services, whatever the
 * runtime: each service's host port on 127.0.0.1. The host is no service of the lab, so it has no
 * port or data folder of its own.
 */
export function hostPlacement(lab: LabState): Placement {
  const hostPorts = hostPortsByService(lab);
  return {
    listenHost: '127.0.0.1',
    port: (name) => {
      throw new Error(`the host has no port "${name}" in lab ${lab.name}`);
    },
    dataDir: lab.dir,
    reach: (service, portName) => {
      const port = hostPorts[service]?.[portName];
      if (port === undefined) throw new Error(`service "${service}" has no port "${portName}"`);
      return `127.0.0.1:${port}`;
    },
  };
}
