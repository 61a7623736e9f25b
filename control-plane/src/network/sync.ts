// The lab's network as its state says it should be, made in Toxiproxy: each link's proxy, with the
// fault of its pair. Run each time Toxiproxy starts (it keeps nothing across a restart) and after
// each change of a fault.
import type { LabAccess } from '../nodes/types.js';
import { type Link, NETWORK_SERVICE, type NetworkState, pairOfLink } from './model.js';
import { applyFault } from './toxics.js';
import { type ProxyConfig, ToxiproxyApi } from './toxiproxy-api.js';

/** The lab's Toxiproxy API, as the control plane reaches it. */
export const networkApi = (access: Pick<LabAccess, 'host'>): ToxiproxyApi =>
  new ToxiproxyApi(`http://${access.host.reach(NETWORK_SERVICE, 'api')}`);

/** Each link's proxy: where it listens and where it connects, as the network service sees the lab. */
function proxyConfigs(access: LabAccess, network: NetworkState): ProxyConfig[] {
  const placement = access.placementFor(NETWORK_SERVICE);
  return network.links.map((link) => ({
    name: link.name,
    listen: `${placement.listenHost}:${placement.port(link.name)}`,
    upstream: placement.reach(link.to, link.port),
    enabled: !network.faults[pairOfLink(link)]?.partitioned,
  }));
}

/** Makes every proxy of the lab (those missing), then brings `links` (all, by default) to their pairs' faults. */
export async function syncNetwork(access: LabAccess, links?: Link[]): Promise<void> {
  const network = access.lab.network;
  if (!network) return;
  const api = networkApi(access);
  await api.populate(proxyConfigs(access, network));
  const proxies = await api.proxies();
  for (const link of links ?? network.links) {
    const proxy = proxies[link.name];
    if (!proxy) throw new Error(`Toxiproxy has no proxy "${link.name}" after it was made`);
    await applyFault(api, proxy, network.faults[pairOfLink(link)]);
  }
}
