// The multi-user wallet server (services/wallet-server) over one Lightning node of the lab.
import { notFound, upstreamFailed } from '../../../../lib/errors.js';
import { encodeLnurl } from '../../connect/lnurl.js';
import type { ServiceState } from '../../lab/state.js';
import { SERVICES_IMAGE } from '../../images/recipes.js';
import { labDatabaseUrl } from '../postgres/index.js';
import { answersHttp, projectService } from '../project-service.js';
import { labRedisUrl } from '../redis/index.js';
import type { ConnectInfo, KindDefinition, LabAccess } from '../types.js';

const settingsOf = (access: LabAccess) => {
  const settings = access.lab.spec.services['wallet-server'];
  if (!settings) throw new Error('lab.yaml has no wallet-server section');
  return settings;
};

/** The base of its lightning addresses and LNURL links: lab.yaml's public_url, or its own address on this machine. */
const publicUrlOf = (access: LabAccess, service: ServiceState) =>
  settingsOf(access).public_url ?? `http://127.0.0.1:${service.hostPorts.http}`;

/**
 * The LNURL-pay link of `user`'s lightning address, once the server confirms the username is claimed:
 * the payRequest URL (LUD-16's /.well-known/lnurlp/USER) as an LNURL, and the address its metadata names.
 */
async function lnurlPayOf(api: string, publicUrl: string, user: string): Promise<Record<string, string>> {
  const path = `/.well-known/lnurlp/${encodeURIComponent(user)}`;
  const response = await fetch(`${api}${path}`, { signal: AbortSignal.timeout(5_000) }).catch((error: unknown) => {
    throw upstreamFailed('WALLET_SERVER_UNREACHABLE', `the wallet server at ${api} did not answer: ${String(error)}`);
  });
  if (response.status === 404)
    throw notFound(
      `no wallet of the wallet server has the username "${user}": claim it with PUT /wallets/{id}/lightning-address (docs/wallet-server.md)`,
      'NO_SUCH_USERNAME',
    );
  if (!response.ok)
    throw upstreamFailed('WALLET_SERVER_ERROR', `the wallet server answered ${path} with ${response.status}`);
  const { metadata } = (await response.json()) as { metadata: string };
  const identifier = (JSON.parse(metadata) as [string, string][]).find(([type]) => type === 'text/identifier')?.[1];
  return {
    lnurl: encodeLnurl(`${publicUrl}${path}`),
    lnurlpUrl: `${publicUrl}${path}`,
    ...(identifier ? { lightningAddress: identifier } : {}),
  };
}

export const walletServer: KindDefinition = {
  ports: { http: 8080 },
  image: SERVICES_IMAGE,
  public: true,
  stateless: true,
  metricsPort: 'http',
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
      PUBLIC_URL: publicUrlOf(access, service),
      NETWORK: 'regtest',
    });
  },
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'http')}/health`),
  describe: async (access, service) => ({
    url: `http://${access.host.reach(service.name, 'http')}`,
    docs: `http://${access.host.reach(service.name, 'http')}/docs`,
  }),
  credentials: async (access, service) => ({ url: `http://${access.host.reach(service.name, 'http')}` }),
  async connectInfo(access, service, { user }): Promise<ConnectInfo> {
    const api = `http://${access.host.reach(service.name, 'http')}`;
    const publicUrl = publicUrlOf(access, service);
    return {
      uris: {
        api,
        openapi: `${api}/openapi.json`,
        ...(user === undefined ? {} : await lnurlPayOf(api, publicUrl, user)),
      },
      notes: [
        'api: the base of its HTTP API (sign-in, wallets, invoices, payments; docs/wallet-server.md)',
        user === undefined
          ? `LNURL-pay: ${publicUrl}/.well-known/lnurlp/USERNAME for a claimed username; --user USERNAME gives its LNURL`
          : `lnurl: LNURL-pay of ${user} (LUD-06/16), for any LNURL wallet; LNURL-withdraw, when its owner enabled it, is ${publicUrl}/lnurlw/${user}`,
      ],
    };
  },
};
