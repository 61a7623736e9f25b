// The multi-user wallet server (services/wallet-server) over one Lightning node of the lab.
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { labDatabaseUrl } from '../postgres/index.js';
import { answersHttp, projectService } from '../project-service.js';
import { labRedisUrl } from '../redis/index.js';
import type { KindDefinition, LabAccess } from '../types.js';

const settingsOf = (access: LabAccess) => {
  const settings = access.lab.spec.services['wallet-server'];
  if (!settings) throw new Error('lab.yaml has no wallet-server section');
  return settings;
};

export const walletServer: KindDefinition = {
  ports: { http: 8080 },
  image: SERVICES_IMAGE,
  public: true,
  stateless: true,
  /** Its node is one a lab service reaches as a Lightning node (kinds with clientEnv). */
  validate(entry, { lab, kindOf, nodeKinds }) {
    const node = lab.nodes.find((candidate) => candidate.name === lab.services['wallet-server']?.node);
    if (!node || kindOf(node.kind).clientEnv) return [];
    const lightning = nodeKinds((kind) => kind.clientEnv !== undefined)
      .join(', ')
      .replace(/, ([^,]+)$/, ' or $1');
    return [
      {
        path: [...entry.path, 'node'],
        message: `the wallet server needs a Lightning node (${lightning}); ${node.kind} nodes have no Lightning side`,
      },
    ];
  },
  dependsOn: (_name, spec) => [
    spec.services['wallet-server']!.node,
    ...(spec.postgres.managed ? ['postgres'] : []),
    ...(spec.redis.managed ? ['redis'] : []),
  ],
  launch(access, service) {
    const settings = settingsOf(access);
    const placement = access.placementFor(service.name);
    return projectService('services/wallet-server/src/main.js', placement, 'http', {
      ...access.clientEnvOf(settings.node, placement),
      DATABASE_URL: labDatabaseUrl(access, placement),
      REDIS_URL: labRedisUrl(access, placement),
      ADMIN_PUBKEYS: settings.admin_pubkeys.join(','),
      TOKEN_SECRET: access.lab.secrets.walletServerTokenSecret,
      PUBLIC_URL: settings.public_url ?? `http://127.0.0.1:${service.hostPorts.http}`,
      NETWORK: 'regtest',
    });
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/health`),
  describe: async (access, service) => ({
    url: `http://${access.host.reach(service.name, 'http')}`,
    docs: `http://${access.host.reach(service.name, 'http')}/docs`,
  }),
  credentials: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}` }),
};
