// The Esplora-style chain-data adapter (services/chain-adapter).
import { feePolicyToEnv } from '../../../../lib/chain/fee-policy.js';
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { chainConfigToEnv } from '../../../../lib/chain/from-env.js';
import { labFeePolicy } from '../../lab/fee-market.js';
import { CHAIN_SERVICE, chainRpcFor } from '../btcd/index.js';
import { answersHttp, projectService } from '../project-service.js';
import type { KindDefinition } from '../types.js';

export const chainAdapter: KindDefinition = {
  ports: { http: 8080 },
  image: SERVICES_IMAGE,
  public: true,
  stateless: true,
  metricsPort: 'http',
  validate: (entry, { lab }) =>
    lab.indexer.enabled
      ? []
      : [{ path: entry.path, message: 'the chain adapter needs the indexer (indexer.enabled: true)' }],
  dependsOn: () => [CHAIN_SERVICE, 'indexer'],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return projectService('services/chain-adapter/src/main.js', placement, 'http', {
      ...chainConfigToEnv(chainRpcFor(access, placement)),
      INDEXER_URL: `tcp://${placement.reach('indexer', 'electrum')}`,
      NETWORK: 'regtest',
      ...feePolicyToEnv(labFeePolicy(access.lab)),
    });
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/api/health`),
  describe: async (access, service) => ({
    url: `http://${access.host.reach(service.name, 'http')}/api`,
    docs: `http://${access.host.reach(service.name, 'http')}/docs`,
  }),
  credentials: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}/api` }),
};
