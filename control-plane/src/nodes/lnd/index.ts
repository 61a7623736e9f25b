// lnd nodes.
import { localImage, upstreamImage } from '../../images/recipes.js';
import { join } from 'node:path';
import { lightningEnv } from '../../../../lib/lightning/implementations.js';
import { LndLightning } from '../../../../lib/lightning/lnd/client.js';
import type { LndCredentials } from '../../../../lib/lightning/lnd/connection.js';
import { lndconnectUri } from '../../connect/lndconnect.js';
import { nodeUriOf } from '../../connect/node-uri.js';
import { lndFeesPath } from '../../lab/fee-market.js';
import type { Placement } from '../../runtimes/types.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { writeCredentialFile } from '../credential-files.js';
import { lightningPeerDials } from '../lightning-peers.js';
import { reconnectChannelPeers } from '../reconnect.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { LND_ADMIN_MACAROON_FILE, LND_TLS_CERT_FILE, lndLaunch } from './launch.js';
import { LND_NODE_SETTINGS } from './settings.js';
import { isLightning, lightningNode } from '../node.js';

/** The lnd client of the lab's handle on `name` (lnd alone tells when its peer server has started). */
function clientOf(access: LabAccess, name: string): LndLightning {
  const node = access.node(name);
  if (!isLightning(node) || !(node.lightning instanceof LndLightning)) throw new Error(`${name} is not an lnd node`);
  return node.lightning;
}

function credentialsAt(access: LabAccess, name: string, placement: Placement): LndCredentials {
  return {
    socket: placement.reach(name, 'grpc'),
    certBase64: access.credentials.require(name, 'certBase64'),
    macaroonHex: access.credentials.require(name, 'macaroonHex'),
  };
}

/**
 * Where lnd reads the lab's fee rates: the control plane, up before any node (process labs), or, in
 * a docker lab, whose containers do not reach the control plane, its chain adapter when it has one.
 */
function feeUrlFor(access: LabAccess, placement: Placement): string | undefined {
  if (access.controlPlaneUrl) return `${access.controlPlaneUrl}${lndFeesPath(access.lab.name)}`;
  if (access.lab.services['chain-adapter']) return `http://${placement.reach('chain-adapter', 'http')}/api/fees/lnd`;
  return undefined;
}

export const lnd: KindDefinition = {
  ports: { grpc: 10009, rest: 8080, p2p: 9735 },
  image: localImage('lnd', { binaries: ['lnd', 'lncli'], entrypoint: ['/usr/local/bin/lnd'] }),
  upstreamImage: upstreamImage('lnd-upstream', {
    folder: 'lnd',
    version: 'v0.20.1-beta',
    buildArgs: { LND_VERSION: 'v0.20.1-beta' },
    entrypoint: ['/usr/local/bin/lnd'],
  }),
  nodeSettings: LND_NODE_SETTINGS,
  dependsOn: () => [CHAIN_SERVICE],
  dials: (name, spec) => [{ service: CHAIN_SERVICE, port: 'rpc' }, ...lightningPeerDials(name, spec)],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return lndLaunch(placement, {
      alias: service.name,
      chainService: CHAIN_SERVICE,
      chainRpcUser: access.lab.secrets.chainRpcUser,
      chainRpcPassword: access.lab.secrets.chainRpcPassword,
      chainRpcCertPem: access.credentials.require(CHAIN_SERVICE, 'certPem'),
      tlsExtraDomains: [service.name],
      feeUrl: feeUrlFor(access, placement),
      chainCheckAttempts: access.lab.spec.nodes.find((node) => node.name === service.name)?.chain_check_attempts,
    });
  },
  /** Ready when its wallet is unlocked and synced to the chain tip, and its peer server has started. */
  async probe(access, service) {
    const location = { lab: access.lab, service: service.name };
    const [cert, macaroon] = await Promise.all([
      access.runtime.readServiceFile(location, LND_TLS_CERT_FILE),
      access.runtime.readServiceFile(location, LND_ADMIN_MACAROON_FILE),
    ]);
    access.credentials.set(service.name, {
      certBase64: cert.toString('base64'),
      macaroonHex: macaroon.toString('hex'),
    });
    const client = clientOf(access, service.name);
    return (await client.info()).synced && (await client.serverActive());
  },
  /** Running: synced, and reaching its chain node now (a restarted chain node is dialled again only after a wait). */
  health: (access, service) => clientOf(access, service.name).followsChain(),
  async describe(access, service) {
    const dir = join(access.lab.dir, 'credentials', service.name);
    writeCredentialFile(
      join(dir, 'tls.cert'),
      Buffer.from(access.credentials.require(service.name, 'certBase64'), 'base64'),
    );
    writeCredentialFile(
      join(dir, 'admin.macaroon'),
      Buffer.from(access.credentials.require(service.name, 'macaroonHex'), 'hex'),
    );
    const { pubkey } = await clientOf(access, service.name).info();
    const host = (port: string) => access.host.reach(service.name, port);
    return {
      pubkey,
      grpc: host('grpc'),
      rest: `https://${host('rest')}`,
      p2p: host('p2p'),
      tlsCert: join(dir, 'tls.cert'),
      macaroon: join(dir, 'admin.macaroon'),
    };
  },
  async credentials(access, service) {
    const host = (port: string) => access.host.reach(service.name, port);
    return {
      grpc: host('grpc'),
      rest: `https://${host('rest')}`,
      macaroonHex: access.credentials.require(service.name, 'macaroonHex'),
      tlsCertPem: Buffer.from(access.credentials.require(service.name, 'certBase64'), 'base64').toString('utf8'),
    };
  },
  async connectInfo(access, service) {
    const certPem = Buffer.from(access.credentials.require(service.name, 'certBase64'), 'base64').toString('utf8');
    const macaroonHex = access.credentials.require(service.name, 'macaroonHex');
    const host = (port: string) => access.host.reach(service.name, port);
    return {
      uris: {
        lndconnect: lndconnectUri(host('grpc'), certPem, macaroonHex),
        lndconnectRest: lndconnectUri(host('rest'), certPem, macaroonHex),
        ...nodeUriOf(access, service),
      },
      notes: [
        'lndconnect is the gRPC port (ThunderHub, ln-service, lncli-style tools); lndconnectRest the REST port (Zeus)',
        'both carry the admin macaroon: whoever holds them controls the node',
      ],
    };
  },
  node: (access, name) =>
    lightningNode(name, 'lnd', new LndLightning(credentialsAt(access, name, access.host), { name })),
  initialise: reconnectChannelPeers,
  clientEnv: (access, name, placement) => lightningEnv('lnd', credentialsAt(access, name, placement)),
};
