// The test-coin faucet (services/faucet): sends from a node's wallet, mines through the lab's queue.
import { chainConfigToEnv } from '../../../../lib/chain/from-env.js';
import { CHAIN_SERVICE, chainRpcFor } from '../btcd/index.js';
import { answersHttp, projectService } from '../project-service.js';
import { labRedisUrl } from '../redis/index.js';
import type { KindDefinition, LabAccess } from '../types.js';

const settingsOf = (access: LabAccess) => {
  const settings = access.lab.spec.services.faucet;
  if (!settings) throw new Error('lab.yaml has no faucet section');
  return settings;
};

export const faucet: KindDefinition = {
  ports: { http: 8080 },
  image: 'services',
  public: true,
  dependsOn: (_name, spec) => [spec.services.faucet!.node, CHAIN_SERVICE, ...(spec.redis.managed ? ['redis'] : [])],
  launch(access, service) {
    const settings = settingsOf(access);
    const placement = access.placementFor(service.name);
    const adapter = access.lab.services['chain-adapter'];
    return projectService('services/faucet/src/main.js', placement, 'http', {
      ...chainConfigToEnv(chainRpcFor(access, placement)),
      ...access.clientEnvOf(settings.node, placement),
      REDIS_URL: labRedisUrl(access, placement),
      CLAIM_SAT: String(settings.claim_sat),
      COOLDOWN_SECONDS: String(settings.cooldown_seconds),
      ...(access.controlPlaneUrl ? { MINE_URL: `${access.controlPlaneUrl}/labs/${access.lab.name}/mine` } : {}),
      ...(adapter ? { ADAPTER_PUBLIC_URL: `http://127.0.0.1:${adapter.hostPorts.http}` } : {}),
      NETWORK: 'regtest',
    });
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/api/status`),
  describe: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}/`, docs: `http://${access.host.reach(service.name, 'http')}/docs` }),
  credentials: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}/` }),
};
