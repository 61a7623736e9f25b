// An rgb node (services/rgb-node): an RGB wallet on rgb-lib serving the on-chain part of RGB
// Lightning Node's API, so the lab drives it as it drives RLN for assets. No Lightning side.
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { answersHttp, projectService } from '../project-service.js';
import { electrumIndexerUrl, proxyEndpoint } from '../../../../lib/rgb/endpoints.js';
import { RlnApiNode } from '../rln/api-node.js';
import { clientOf, createLabUtxos, describeRlnApi, initialiseRlnApi } from '../rln/index.js';
import { needsIndexer, refuseChannelsOf } from '../rules.js';
import type { KindDefinition } from '../types.js';

export const RGB_PROXY_SERVICE = 'rgb-proxy';

export const rgb: KindDefinition = {
  ports: { api: 3001 },
  image: SERVICES_IMAGE,
  dependsOn: () => [CHAIN_SERVICE, 'indexer', RGB_PROXY_SERVICE],
  validate: (entry, check) => [
    ...needsIndexer(entry, check),
    ...refuseChannelsOf(
      entry,
      check,
      'rgb nodes have no Lightning side (they are RGB wallets on rgb-lib): channels are between Lightning nodes',
    ),
  ],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return projectService('services/rgb-node/src/main.js', placement, 'api', {
      DATA_DIR: placement.dataDir,
      INDEXER_URL: electrumIndexerUrl(placement.reach('indexer', 'electrum')),
      PROXY_ENDPOINT: proxyEndpoint(placement.reach(RGB_PROXY_SERVICE, 'http')),
      NETWORK: 'regtest',
    });
  },
  // before /init and /unlock the node answers its API with 403, as RLN does
  probe: (access, service) =>
    answersHttp(`http://${access.host.reach(service.name, 'api')}/networkinfo`, { anyStatus: true }),
  describe: (access, service) => describeRlnApi(access, service.name),
  credentials: async (access, service) => ({
    api: `http://${access.host.reach(service.name, 'api')}`,
    password: access.lab.secrets.rlnPassword,
  }),
  node: (access, name) => new RlnApiNode(name, 'rgb', clientOf(access, name)),
  holdsAssets: true,
  initialise: initialiseRlnApi,
  afterFunding: createLabUtxos,
};
