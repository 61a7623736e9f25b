// The links of a lab with network faults, worked out once when its state is made: one proxy for
// each connection a node opens by itself to another service (its kind says which:
// KindDefinition.dials), named "from>to:port".
import { kindDefinition } from '../nodes/registry.js';
import type { LabSpec } from '../spec/types.js';
import { CLOSED_PORT_NAME, type Link } from './model.js';

/** The first of the ports the proxies listen on inside the Toxiproxy container, one per link. */
const FIRST_LINK_PORT = 20_000;
const CLOSED_PORT = 19_999;

export const networkFaultsOn = (spec: LabSpec): boolean => spec.network?.faults === true;

/** Every link of the lab, in a fixed order (the same lab.yaml gives the same ports); none without network faults. */
export function labLinks(spec: LabSpec): Link[] {
  if (!networkFaultsOn(spec)) return [];
  return spec.nodes
    .flatMap((node) =>
      (kindDefinition(node.kind).dials?.(node.name, spec) ?? []).map((dial) => ({
        name: `${node.name}>${dial.service}:${dial.port}`,
        from: node.name,
        to: dial.service,
        port: dial.port,
      })),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The network service's ports inside its container, besides its API: one per link, and the closed port. */
export function networkPorts(links: Link[]): Record<string, number> {
  return {
    [CLOSED_PORT_NAME]: CLOSED_PORT,
    ...Object.fromEntries(links.map((link, index) => [link.name, FIRST_LINK_PORT + index])),
  };
}
