// lnd nodes.
import { join } from 'node:path';
import {
  connectLnd,
  connectLndUnauthenticated,
  lndCredentialsToEnv,
  type LndCredentials,
} from '../../../../lib/lightning/lnd.js';
import { lndFeesPath } from '../../lab/fee-market.js';
import type { Placement } from '../../runtimes/types.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { writeCredentialFile } from '../credential-files.js';
import { reconnectChannelPeers } from '../reconnect.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { LND_ADMIN_MACAROON_FILE, LND_TLS_CERT_FILE, lndLaunch } from './launch.js';
import { LndLabNode } from './lightning.js';

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
  image: 'lnd',
  upstreamImage: 'lnd-upstream',
  dependsOn: () => [CHAIN_SERVICE],
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
    const node = access.node(service.name) as LndLabNode;
    return (await node.info()).synced && (await node.serverActive());
  },
  health: async (access, service) => (await (access.node(service.name) as LndLabNode).info()).synced,
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
    const { pubkey } = await (access.node(service.name) as LndLabNode).info();
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
  node(access, name) {
    const credentials = credentialsAt(access, name, access.host);
    return new LndLabNode(
      name,
      connectLnd(credentials),
      connectLndUnauthenticated(credentials.socket, credentials.certBase64),
    );
  },
  initialise: reconnectChannelPeers,
  clientEnv: (access, name, placement) => ({
    NODE_KIND: 'lnd',
    ...lndCredentialsToEnv(credentialsAt(access, name, placement)),
  }),
};
