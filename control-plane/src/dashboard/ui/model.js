// What the page derives from a lab's view (GET /labs/{lab}): its channels, once each, a colour for
// each node, and the network faults on its links.

const NODE_COLORS = ['#2f6fde', '#8a4fd3', '#0f9d8a', '#d9690f', '#c23a7b', '#5d7f13', '#1f8fbf', '#a66a00'];

/** Each node's colour, by name: the node's card, and its side of every channel bar. */
export const nodeColors = (nodes = []) =>
  new Map(nodes.map((node, index) => [node.name, NODE_COLORS[index % NODE_COLORS.length]]));

/**
 * The lab's channels, each once: both of its nodes report it, so it is taken from the node that
 * comes first in the lab (`from`), with that node's balance as `localSat`. A channel to a node
 * outside the lab has `external: true` and the partner's pubkey as `to`.
 */
export function labChannels(view) {
  const nodes = view.nodes ?? [];
  const order = new Map(nodes.map((node, index) => [node.name, index]));
  const perPair = new Map();
  const channels = [];
  nodes.forEach((node, index) => {
    for (const channel of node.channels ?? []) {
      const partnerIndex = order.get(channel.partner);
      if (partnerIndex !== undefined && partnerIndex <= index) continue;
      const pair = `${node.name}|${channel.partner}`;
      const parallel = perPair.get(pair) ?? 0;
      perPair.set(pair, parallel + 1);
      channels.push({
        key: channel.id ?? `${pair}|${parallel}`,
        id: channel.id,
        from: node.name,
        to: channel.partner,
        external: partnerIndex === undefined,
        parallel,
        capacitySat: channel.capacitySat,
        localSat: channel.localSat,
        remoteSat: channel.remoteSat,
        active: channel.active,
      });
    }
  });
  return channels.sort(
    (a, b) =>
      order.get(a.from) - order.get(b.from) ||
      (order.get(a.to) ?? Infinity) - (order.get(b.to) ?? Infinity) ||
      a.parallel - b.parallel,
  );
}

/** Each service's status by name. */
export const serviceStatuses = (view) =>
  new Map((view.services ?? []).map((service) => [service.name, service.status]));

/** The key of a pair of services, whichever comes first: "alice|bob". */
export const pairKey = (a, b) => [a, b].sort().join('|');

/**
 * The network faults of a lab with network faults (`reglab net`): each faulty pair's description by
 * its key, and the nodes cut off from the lab. Empty for a lab without.
 */
export function linkFaults(view) {
  const links = view.network?.links ?? [];
  return {
    byPair: new Map(links.map((link) => [pairKey(...link.between), link])),
    cutOff: new Set(view.network?.cutOff ?? []),
  };
}
