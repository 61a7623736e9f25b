import { join } from 'node:path';
import type { LabLayout, Placement } from '../types.js';

/** Every service of a process lab on 127.0.0.1, each with its own free host ports. */
export function processPlacement(lab: LabLayout, service: string): Placement {
  const portOf = (target: string, portName: string) => {
    const port = lab.services[target]?.hostPorts[portName];
    if (port === undefined) throw new Error(`service "${target}" has no port "${portName}"`);
    return port;
  };
  return {
    listenHost: lab.services[service]?.public ? '0.0.0.0' : '127.0.0.1',
    port: (name) => portOf(service, name),
    dataDir: serviceDataDir(lab.dir, service),
    reach: (target, portName) => `127.0.0.1:${portOf(target, portName)}`,
    hostPeer: 'loopback',
  };
}

export const serviceDataDir = (labDir: string, service: string) => join(labDir, 'services', service);
export const serviceLogFile = (labDir: string, service: string) => join(labDir, 'logs', `${service}.log`);
