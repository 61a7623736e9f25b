import type { LaunchSpec, Placement } from '../../runtimes/types.js';
import type { Dial } from '../types.js';
import type { LdkChainSource } from './settings.js';

/** The lab service each chain source is, and its port the node connects to. */
export const LDK_CHAIN_SOURCES: Record<LdkChainSource, Dial> = {
  electrum: { service: 'indexer', port: 'electrum' },
  esplora: { service: 'chain-adapter', port: 'http' },
};

/** The daemon's --chain-source as `placement` reaches the lab's chain service. */
function chainSourceArg(placement: Placement, source: LdkChainSource): string {
  const { service, port } = LDK_CHAIN_SOURCES[source];
  return source === 'electrum'
    ? `electrum=tcp://${placement.reach(service, port)}`
    : `esplora=http://${placement.reach(service, port)}/api`;
}

/**
 * reglab-ldk (nodes/ldk) on regtest. It announces the address the lab's other nodes dial it at (a
 * container's name in a docker lab), so the channels it opens are announced and routable.
 */
export function ldkLaunch(
  placement: Placement,
  settings: { alias: string; announceAddress: string; chainSource: LdkChainSource },
): LaunchSpec {
  const host = placement.listenHost;
  return {
    program: { type: 'node-binary', name: 'reglab-ldk' },
    args: [
      '--data-dir',
      placement.dataDir,
      '--network',
      'regtest',
      '--api-listen',
      `${host}:${placement.port('api')}`,
      '--p2p-listen',
      `${host}:${placement.port('p2p')}`,
      '--announce-address',
      settings.announceAddress,
      '--alias',
      settings.alias,
      '--chain-source',
      chainSourceArg(placement, settings.chainSource),
    ],
    env: {},
  };
}
