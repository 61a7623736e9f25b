// btcd, the lab's chain node (service "chain").
import { localImage } from '../../images/recipes.js';
import { join } from 'node:path';
import { watchBtcd } from '../../../../lib/chain/btcd-notifications.js';
import type { ChainRpcConfig } from '../../../../lib/chain/types.js';
import { freshenChainTip } from '../../lab/chain-tip.js';
import type { Placement } from '../../runtimes/types.js';
import { regtestKey } from '../../wallet/keys.js';
import { writeCredentialFile } from '../credential-files.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { BTCD_RPC_CERT_FILE, btcdLaunch } from './launch.js';

export const CHAIN_SERVICE = 'chain';

/** The chain node's JSON-RPC as `placement` reaches it (btcd speaks TLS with its own certificate). */
export function chainRpcFor(access: Pick<LabAccess, 'lab' | 'credentials'>, placement: Placement): ChainRpcConfig {
  return {
    kind: 'btcd',
    url: `https://${placement.reach(CHAIN_SERVICE, 'rpc')}`,
    user: access.lab.secrets.chainRpcUser,
    password: access.lab.secrets.chainRpcPassword,
    tlsCertPem: access.credentials.get(CHAIN_SERVICE)?.certPem,
  };
}

export const btcd: KindDefinition = {
  ports: { rpc: 18334, p2p: 18444 },
  image: localImage('btcd', { binaries: ['btcd', 'btcctl'], entrypoint: ['/usr/local/bin/btcd'] }),
  dependsOn: () => [],
  launch: (access, service) =>
    btcdLaunch(access.placementFor(service.name), {
      rpcUser: access.lab.secrets.chainRpcUser,
      rpcPassword: access.lab.secrets.chainRpcPassword,
      miningAddress: regtestKey(access.lab.secrets.labWalletKeyHex).address,
    }),
  async probe(access, service) {
    const cert = await access.runtime.readServiceFile({ lab: access.lab, service: service.name }, BTCD_RPC_CERT_FILE);
    access.credentials.set(service.name, { certPem: cert.toString('utf8') });
    return (await access.chain.getBlockCount()) >= 0;
  },
  health: async (access) => (await access.chain.getBlockCount()) >= 0,
  // btcd starts every regtest chain empty: a restarted node gets the lab's blocks back before it is
  // ready, and a new block when the newest of them is too old for lnd
  async initialise(access) {
    await access.chainJournal.replay(access.chain);
    await freshenChainTip(access);
  },
  async describe(access, service) {
    const certFile = join(access.lab.dir, 'credentials', service.name, 'rpc.cert');
    writeCredentialFile(certFile, access.credentials.require(service.name, 'certPem'));
    return {
      rpc: `https://${access.host.reach(service.name, 'rpc')}`,
      p2p: access.host.reach(service.name, 'p2p'),
      rpcUser: access.lab.secrets.chainRpcUser,
      rpcCert: certFile,
    };
  },
  watchBlocks: (access, onChange) => watchBtcd(() => chainRpcFor(access, access.host), onChange).stop,
  async credentials(access, service) {
    return {
      rpcUrl: `https://${access.host.reach(service.name, 'rpc')}`,
      rpcUser: access.lab.secrets.chainRpcUser,
      rpcPassword: access.lab.secrets.chainRpcPassword,
      rpcCertPem: access.credentials.require(service.name, 'certPem'),
    };
  },
};
