import type { LabLayout, Placement } from './types.js';

/**
 * How this machine (the control plane, the CLI, tests) reaches a lab's services, whatever the
 * runtime: each service's host port on 127.0.0.1. The host is no service of the lab, so it has no
 * port or data folder of its own.
 */
export function hostPlacement(lab: LabLayout): Placement {
  return {
    listenHost: '127.0.0.1',
    port: (name) => {
      throw new Error(`the host has no port "${name}" in lab ${lab.name}`);
    },
    dataDir: lab.dir,
    reach: (service, portName) => {
      const port = lab.services[service]?.hostPorts[portName];
      if (port === undefined) throw new Error(`service "${service}" has no port "${portName}"`);
      return `127.0.0.1:${port}`;
    },
    hostPeer: 'loopback',
  };
}
