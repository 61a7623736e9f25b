// The test-coin faucet (services/faucet): sends from a node's wallet, mines through the lab's queue;
// with services.faucet.asset it also gives one of the lab's RGB assets from an rgb or rln node.
import { SERVICES_IMAGE } from '../../images/recipes.js';
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

/**
 * Whose X-Forwarded-For the faucet believes: lab.yaml's list ([]: no one's), by default this
 * machine's connections as the faucet sees them (a reverse proxy on this machine then passes its
 * clients' addresses; clients elsewhere cannot pick theirs). docs/faucet.md, Client IP.
 */
function trustProxyOf(setting: string[] | undefined, placement: Placement): string {
  const trusted = setting ?? [placement.hostPeer];
  return trusted.length === 0 ? 'false' : trusted.join(',');
}

export const faucet: KindDefinition = {
  ports: { http: 8080 },
  image: SERVICES_IMAGE,
  public: true,
  stateless: true,
  metricsPort: 'http',
  /** It sends from its node's on-chain wallet through lnd. */
  validate(entry, { lab }) {
    const node = lab.nodes.find((candidate) => candidate.name === lab.services.faucet?.node);
    return node && node.kind !== 'lnd'
      ? [{ path: [...entry.path, 'node'], message: 'the faucet sends from an lnd node wallet' }]
      : [];
  },
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
        TRUST_PROXY: trustProxyOf(settings.trust_proxy, placement),
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
