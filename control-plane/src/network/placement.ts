// How the nodes of a lab with network faults see each other: every link a node opens goes to its
// proxy. On the process runtime the proxy's own port on 127.0.0.1 stands for the service dialled;
// in a container the service's name stays (btcd's TLS certificate names it) and the container's
// /etc/hosts gives that name the proxy's address (`reroutes`), at the port of the link's proxy.
import type { LabState } from '../lab/state.js';
import type { Placement } from '../runtimes/types.js';
import { CLOSED_PORT_NAME, NETWORK_SERVICE } from './model.js';

const portOf = (address: string) => address.slice(address.lastIndexOf(':') + 1);

/** `base` with the links `service` opens sent through their proxies; `base` itself for a service without links. */
export function throughNetwork(base: Placement, lab: LabState, service: string): Placement {
  const links = lab.network?.links.filter((link) => link.from === service) ?? [];
  if (links.length === 0) return base;
  return {
    ...base,
    reach(target, portName) {
      const link = links.find((candidate) => candidate.to === target && candidate.port === portName);
      if (!link) return base.reach(target, portName);
      const proxy = base.reach(NETWORK_SERVICE, link.name);
      return lab.runtime === 'docker' ? `${target}:${portOf(proxy)}` : proxy;
    },
  };
}

/**
 * The names a service's container resolves to another service's address (docker): each service
 * it has a link to is the network proxy there. None without network faults, nor on the process runtime.
 */
export function reroutesOf(lab: LabState, service: string): Record<string, string> | undefined {
  if (lab.runtime !== 'docker') return undefined;
  const targets = (lab.network?.links ?? []).filter((link) => link.from === service).map((link) => link.to);
  return targets.length > 0 ? Object.fromEntries(targets.map((target) => [target, NETWORK_SERVICE])) : undefined;
}

/**
 * The P2P address a node announces to the graph, in a lab with network faults: one where nothing
 * listens, so that its peers reach it only over their own links (lnd dials the addresses a node
 * announces as well as those it knows, which would go round the proxy and a partition). Undefined
 * without network faults: the node announces its own address.
 */
export function announcedAddress(lab: LabState, placement: Placement, service: string): string | undefined {
  if (!lab.network) return undefined;
  const closed = placement.reach(NETWORK_SERVICE, CLOSED_PORT_NAME);
  return lab.runtime === 'docker' ? `${service}:${portOf(closed)}` : closed;
}
