// Toxiproxy, the lab's network in a lab with network faults (lab.yaml network.faults): one TCP
// proxy per link between nodes, where `reglab net` adds delay, limits the rate, resets connections
// or cuts the link. It keeps nothing across a restart: each start, the links and their faults are
// made again from the lab's state.
import { syncNetwork, networkApi } from '../../network/sync.js';
import type { KindDefinition } from '../types.js';
import { toxiproxyLaunch } from './launch.js';

export const toxiproxy: KindDefinition = {
  ports: { api: 8474 },
  image: 'toxiproxy',
  dependsOn: () => [],
  launch: (access, service) => toxiproxyLaunch(access.placementFor(service.name)),
  probe: async (access) => (await networkApi(access).version()).length > 0,
  initialise: (access) => syncNetwork(access),
  async describe(access) {
    return { api: networkApi(access).url, links: String(access.lab.network?.links.length ?? 0) };
  },
  credentials: async (access) => ({ api: networkApi(access).url }),
};
