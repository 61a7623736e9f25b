// Toxiproxy, the lab's network in a lab with network faults (lab.yaml network.faults): one TCP
// proxy per link between nodes, where `reglab net` adds delay, limits the rate, resets connections
// or cuts the link. It keeps nothing across a restart: each start, the links and their faults are
// made again from the lab's state.
import { localImage } from '../../images/recipes.js';
import { syncNetwork, networkApi } from '../../network/sync.js';
import type { OnDemandBuild } from '../binary-build.js';
import { reconnectRunningNodes } from '../reconnect.js';
import type { KindDefinition } from '../types.js';
import { toxiproxyLaunch } from './launch.js';

const BUILD_SCRIPT = 'scripts/build-toxiproxy.sh';

/** toxiproxy-server, built by Go from nodes/toxiproxy the first time a lab has network faults (or by `setup.sh --all`). */
const TOXIPROXY_BUILD: OnDemandBuild = {
  binary: 'toxiproxy-server',
  what: 'the proxy on the links of a lab with network faults',
  script: BUILD_SCRIPT,
  usually: 'one to three minutes',
};

export const toxiproxy: KindDefinition = {
  ports: { api: 8474 },
  image: localImage('toxiproxy', {
    binaries: ['toxiproxy-server'],
    buildScript: BUILD_SCRIPT,
    entrypoint: ['/usr/local/bin/toxiproxy-server'],
  }),
  binaryBuild: TOXIPROXY_BUILD,
  dependsOn: () => [],
  launch: (access, service) => toxiproxyLaunch(access.placementFor(service.name)),
  probe: async (access) => (await networkApi(access).version()).length > 0,
  // a restart cut every link at once: the nodes dial each other again before the lab counts its network back
  async initialise(access) {
    await syncNetwork(access);
    await reconnectRunningNodes(access);
  },
  async describe(access) {
    return { api: networkApi(access).url, links: String(access.lab.network?.links.length ?? 0) };
  },
  credentials: async (access) => ({ api: networkApi(access).url }),
};
