import type { Placement, ServiceKind } from '../../kinds/types.js';

/** Every container of a docker lab mounts its volume here. */
export const CONTAINER_DATA_DIR = '/data';

/**
 * The fixed port each kind listens on inside its container, by port name (the names the kinds
 * and the planner use). Containers have their own network namespaces, so these never collide.
 */
export const CONTAINER_PORTS: Record<ServiceKind, Record<string, number>> = {
  btcd: { rpc: 18334, p2p: 18444 },
  bitcoind: { rpc: 18443, p2p: 18444, zmqblock: 28332, zmqtx: 28333 },
  lnd: { grpc: 10009, rest: 8080, p2p: 9735 },
  rln: { api: 3001, p2p: 9735 },
  postgres: { sql: 5432 },
  redis: { redis: 6379 },
  indexer: { electrum: 50001 },
  electrs: { electrum: 50001, monitoring: 4224 },
  'wallet-server': { http: 8080 },
  faucet: { http: 8080 },
  'chain-adapter': { http: 8080 },
};

export function containerPort(kind: ServiceKind, portName: string): number {
  const port = CONTAINER_PORTS[kind][portName];
  if (port === undefined) {
    throw new Error(`a ${kind} container has no port named "${portName}" (known: ${Object.keys(CONTAINER_PORTS[kind]).join(', ')})`);
  }
  return port;
}

export const networkName = (lab: string) => `reglab-${lab}`;
export const containerName = (lab: string, service: string) => `reglab-${lab}-${service}`;
export const volumeName = (lab: string, service: string) => `reglab-${lab}-${service}`;

/**
 * How a service sees the world in a docker lab: it listens on all interfaces of its container on
 * its kind's fixed ports, keeps its data in the volume at /data, and reaches the other services
 * of the lab by service name: each container is aliased by its service name on its lab's own
 * network and carries it as hostname, so the certificates btcd and lnd generate name it too.
 */
export function dockerPlacement(lab: string, service: string, kindOf: Record<string, ServiceKind>): Placement {
  const kind = (target: string) => {
    const found = kindOf[target];
    if (found === undefined) throw new Error(`lab ${lab} has no service "${target}"`);
    return found;
  };
  return {
    listenHost: '0.0.0.0',
    port: (name) => containerPort(kind(service), name),
    dataDir: CONTAINER_DATA_DIR,
    reach: (target, portName) => `${target}:${containerPort(kind(target), portName)}`,
  };
}
