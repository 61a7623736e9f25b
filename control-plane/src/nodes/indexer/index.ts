// The lab's Electrum indexer over btcd (services/indexer).
import { feePolicyToEnv, type FeePolicy } from '../../../../lib/chain/fee-policy.js';
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { chainConfigToEnv } from '../../../../lib/chain/from-env.js';
import type { ChainRpcConfig } from '../../../../lib/chain/types.js';
import { labFeePolicy } from '../../lab/fee-market.js';
import type { LaunchSpec, Placement } from '../../runtimes/types.js';
import { CHAIN_SERVICE, chainRpcFor } from '../btcd/index.js';
import { projectService } from '../project-service.js';
import type { KindDefinition } from '../types.js';
import { electrumCall } from './electrum.js';

/** The indexer as `placement` runs it, following the chain node at `chain`, answering fees by `fees` (else by the node's estimates). */
export function indexerLaunch(placement: Placement, chain: ChainRpcConfig, fees?: FeePolicy): LaunchSpec {
  return projectService('services/indexer/src/main.js', placement, 'electrum', {
    DATA_DIR: placement.dataDir,
    ...chainConfigToEnv(chain),
    ...(fees ? feePolicyToEnv(fees) : {}),
  });
}

export const indexer: KindDefinition = {
  ports: { electrum: 50001 },
  image: SERVICES_IMAGE,
  dependsOn: () => [CHAIN_SERVICE],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return indexerLaunch(placement, chainRpcFor(access, placement), labFeePolicy(access.lab));
  },
  /** Ready when it answers server.version on its TCP port. */
  probe: async (access, service) =>
    (await electrumCall(access.host.reach(service.name, 'electrum'), 'server.version', ['reglab-probe', '1.4'])) !==
    undefined,
  describe: async (access, service) => ({ electrum: `tcp://${access.host.reach(service.name, 'electrum')}` }),
  credentials: async (access, service) => ({ electrum: `tcp://${access.host.reach(service.name, 'electrum')}` }),
};
