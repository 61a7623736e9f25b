// What a lab with network faults keeps in its state: its links (one proxy each, fixed at bring-up)
// and the fault set on each pair of services. A fault is set on a pair ("alice|bob"): it acts on
// every link between the two, whichever of them dials.

/** The service that runs Toxiproxy in a lab with network faults. */
export const NETWORK_SERVICE = 'toxiproxy';
/**
 * A port nothing listens on, which an LDK node announces to the graph in a lab with network faults:
 * its peers then reach it only over their own links (network/placement.ts, announcedAddress).
 */
export const CLOSED_PORT_NAME = 'closed';

export interface Link {
  /** The proxy's name in Toxiproxy, also the name of its port on the network service: "alice>bob:p2p". */
  name: string;
  /** The service that opens the connection. */
  from: string;
  /** The service it connects to, and that service's port (by name). */
  to: string;
  port: string;
}

export interface LinkFault {
  /** Delay added to what crosses the link, in each direction, in ms. */
  latencyMs?: number;
  /** The delay varies by up to this much, up or down, at random (ms). */
  jitterMs?: number;
  /** What each direction of the link carries at most, in KB/s. */
  bandwidthKBps?: number;
  /** The chance, drawn again every RESET_DRAW_MS, that a connection over the link is reset (0 to 1). */
  resetProbability?: number;
  /** Nothing crosses the link: its proxies are disabled (connections dropped, new ones refused). */
  partitioned?: boolean;
}

export interface NetworkState {
  links: Link[];
  /** By pair ("alice|bob", names sorted); a pair without a fault has no entry. */
  faults: Record<string, LinkFault>;
}

/** The longest delay, in ms, a link is given: longer is an outage, which a partition says better. */
export const MAX_LATENCY_MS = 60_000;
/** The highest rate limit, in KB/s (1 GB/s): above it, no limit would show. */
export const MAX_BANDWIDTH_KBPS = 1_000_000;

/** How often the chance of a reset (`reglab net loss`) is drawn again for each connection. */
export const RESET_DRAW_MS = 10_000;

/** The two ends of a link, in the order that names it ("alice|bob"), whichever of them dials. */
export const pairOf = (a: string, b: string): string => [a, b].sort().join('|');

export const pairOfLink = (link: Link): string => pairOf(link.from, link.to);

export const endsOf = (pair: string): [string, string] => pair.split('|') as [string, string];

/** The pairs of services the links join, each once, in order. */
export const linkPairs = (links: Link[]): string[] => [...new Set(links.map(pairOfLink))].sort();

/** The links of one pair; of every pair `service` is in; or of every pair. */
export function linksOf(links: Link[], a?: string, b?: string): Link[] {
  if (a === undefined) return links;
  if (b === undefined) return links.filter((link) => link.from === a || link.to === a);
  return links.filter((link) => pairOfLink(link) === pairOf(a, b));
}

/** The services a node is joined to by links (its peers, its chain backend). */
export const neighboursOf = (links: Link[], node: string): string[] =>
  [...new Set(linksOf(links, node).map((link) => (link.from === node ? link.to : link.from)))].sort();

/** The Lightning nodes a node has P2P links with. */
export const peersOf = (links: Link[], node: string): string[] =>
  neighboursOf(
    links.filter((link) => link.port === 'p2p'),
    node,
  );

/** Whether every link of `node` with its peers is partitioned: the node is cut off from the other nodes. */
export function isCutOff(network: NetworkState, node: string): boolean {
  const pairs = peersOf(network.links, node).map((other) => pairOf(node, other));
  return pairs.length > 0 && pairs.every((pair) => network.faults[pair]?.partitioned);
}

/** Whether the link between `a` and `b` is partitioned. */
export const isPartitioned = (network: NetworkState | undefined, a: string, b: string): boolean =>
  network?.faults[pairOf(a, b)]?.partitioned === true;

/** What a fault does, in a few words: "delay 200 ms ± 50 ms, loss 10 %" or "partitioned". */
export function describeFault(fault: LinkFault | undefined): string {
  if (!fault) return 'no fault';
  if (fault.partitioned) return 'partitioned';
  const parts: string[] = [];
  if (fault.latencyMs) parts.push(`delay ${fault.latencyMs} ms${fault.jitterMs ? ` ± ${fault.jitterMs} ms` : ''}`);
  if (fault.bandwidthKBps) parts.push(`bandwidth ${fault.bandwidthKBps} KB/s`);
  if (fault.resetProbability) parts.push(`loss ${Math.round(fault.resetProbability * 1000) / 10} %`);
  return parts.join(', ') || 'no fault';
}

/** One pair of services joined by links, with its fault. */
export interface LinkSummary {
  between: [string, string];
  fault?: LinkFault;
  /** The fault in words ("delay 200 ms", "partitioned", "no fault"). */
  description: string;
}

export const linkSummary = (network: NetworkState, pair: string): LinkSummary => ({
  between: endsOf(pair),
  ...(network.faults[pair] ? { fault: network.faults[pair] } : {}),
  description: describeFault(network.faults[pair]),
});

/** What `reglab status` shows of a lab's network: the pairs with a fault, and the nodes cut off. */
export function networkSummary(network: NetworkState): { links: LinkSummary[]; cutOff: string[] } {
  const nodes = [...new Set(network.links.map((link) => link.from))].sort();
  return {
    links: Object.keys(network.faults)
      .sort()
      .map((pair) => linkSummary(network, pair)),
    cutOff: nodes.filter((node) => isCutOff(network, node)),
  };
}
