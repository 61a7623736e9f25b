// The test-coin faucet (services/faucet): sends from a node's wallet, mines through the lab's queue;
// with services.faucet.asset it also gives one of the lab's RGB assets from an rgb or rln node.
import { chainConfigToEnv } from '../../../../lib/chain/from-env.js';
import type { Placement } from '../../runtimes/types.js';
import type { FaucetAssetSpec } from '../../spec/types.js';
import { CHAIN_SERVICE, chainRpcFor } from '../btcd/index.js';
import { answersHttp, projectService } from '../project-service.js';
import { labRedisUrl } from '../redis/index.js';
import type { KindDefinition, LabAccess } from '../types.js';

const settingsOf = (access: LabAccess) => {
  const settings = access.lab.spec.services.faucet;
  if (!settings) throw new Error('lab.yaml has no faucet section');
  return settings;
};

/** The asset faucet's environment: the node's API and the asset's id, which the lab learnt when it issued the asset. */
function assetEnv(access: LabAccess, asset: FaucetAssetSpec, placement: Placement): Record<string, string> {
  const assetId = access.lab.assets?.[asset.ticker];
  if (!assetId)
    throw new Error(
      `the faucet gives ${asset.ticker}, but the lab has not issued it (its assets: ${Object.keys(access.lab.assets ?? {}).join(', ') || 'none'})`,
    );
  return {
    RGB_NODE_URL: `http://${placement.reach(asset.node, 'api')}`,
    ASSET_ID: assetId,
    ASSET_TICKER: asset.ticker,
    ASSET_AMOUNT: String(asset.amount),
  };
}

export const faucet: KindDefinition = {
  ports: { http: 8080 },
  image: 'services',
  public: true,
  stateless: true,
  dependsOn: (_name, spec) => {
    const settings = spec.services.faucet!;
    return [
      settings.node,
      ...(settings.asset ? [settings.asset.node] : []),
      CHAIN_SERVICE,
      ...(spec.redis.managed ? ['redis'] : []),
    ];
  },
  launch(access, service) {
    const settings = settingsOf(access);
    const placement = access.placementFor(service.name);
    const adapter = access.lab.services['chain-adapter'];
    return projectService(
      'services/faucet/src/main.js',
      placement,
      'http',
      {
        ...chainConfigToEnv(chainRpcFor(access, placement)),
        ...access.clientEnvOf(settings.node, placement),
        REDIS_URL: labRedisUrl(access, placement),
        CLAIM_SAT: String(settings.claim_sat),
        COOLDOWN_SECONDS: String(settings.cooldown_seconds),
        ...(access.controlPlaneUrl ? { MINE_URL: `${access.controlPlaneUrl}/labs/${access.lab.name}/mine` } : {}),
        ...(adapter ? { ADAPTER_PUBLIC_URL: `http://127.0.0.1:${adapter.hostPorts.http}` } : {}),
        ...(settings.asset ? assetEnv(access, settings.asset, placement) : {}),
        NETWORK: 'regtest',
      },
      { lowRate: true },
    );
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/api/status`),
  describe: async (access, service) => ({
    url: `http://${access.host.reach(service.name, 'http')}/`,
    docs: `http://${access.host.reach(service.name, 'http')}/docs`,
  }),
  credentials: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}/` }),
};
