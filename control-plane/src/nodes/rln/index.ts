// RGB Lightning Node: runs from its image (docker runtime only, where the image can be built).
import { upstreamImage } from '../../images/recipes.js';
import { RlnClient } from '../../../../lib/rln/client.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { electrumTipHeight } from '../indexer/electrum.js';
import { answersHttp } from '../project-service.js';
import { RlnApiNode } from './api-node.js';
import { needsIndexer, refuseChannelsOf } from '../rules.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { createColoredUtxos, initAndUnlock, rlnArgs, type RlnChainAccess } from './start-sequence.js';

export const clientOf = (access: LabAccess, name: string) => new RlnClient(`http://${access.host.reach(name, 'api')}`);

/** The chain as RLN's start sequence needs it: blocks mined by the lab, served by the indexer. */
function chainAccess(access: LabAccess): RlnChainAccess {
  return {
    height: () => access.chain.getBlockCount(),
    mine: async (blocks) => void (await access.mine(blocks)),
    send: () => Promise.reject(new Error('the lab funds nodes itself')),
    indexedHeight: () => electrumTipHeight(access.host.reach('indexer', 'electrum')),
  };
}

/** RLN's start sequence, for every node serving its API: init (once), unlock over the lab's indexer. */
export async function initialiseRlnApi(access: LabAccess, name: string): Promise<void> {
  const placement = access.placementFor(name);
  await initAndUnlock(clientOf(access, name), {
    password: access.lab.secrets.rlnPassword,
    chain: { kind: 'btcd' },
    indexerUrl: `tcp://${placement.reach('indexer', 'electrum')}`,
    alias: name,
  });
}

/** Colored UTXOs for RGB allocations, once the node's funding is confirmed. */
export const createLabUtxos = (access: LabAccess, name: string) =>
  createColoredUtxos(clientOf(access, name), chainAccess(access));

/** What status shows of a node serving RLN's API: its API, and its pubkey once initialised. */
export async function describeRlnApi(access: LabAccess, name: string): Promise<Record<string, string>> {
  const described: Record<string, string> = { api: `http://${access.host.reach(name, 'api')}` };
  const info = await clientOf(access, name)
    .nodeInfo()
    .catch(() => undefined);
  if (info) described.pubkey = info.pubkey;
  return described;
}

export const rln: KindDefinition = {
  ports: { api: 3001, p2p: 9735 },
  image: upstreamImage('rln', {
    folder: 'rln',
    version: '0c3bf104',
    buildArgs: { RLN_REF: '0c3bf1047ee01a8c8077508276fa2c4a63c87857' },
    entrypoint: ['/usr/local/bin/rgb-lightning-node'],
    unavailable:
      'RGB Lightning Node cannot be built on this machine: its build needs GitHub (the RGB-Tools/rust-lightning ' +
      'submodule, branch rgb, and a git-patched rgb-lib) and Docker Hub, and nothing publishes an image.',
  }),
  dependsOn: () => [CHAIN_SERVICE, 'indexer'],
  validate: (entry, check) => [
    ...(check.lab.runtime === 'process'
      ? [
          {
            path: [...entry.path, 'kind'],
            message: 'rln nodes run only from their container image (set runtime: docker or kubernetes)',
          },
        ]
      : []),
    ...needsIndexer(entry, check),
    ...refuseChannelsOf(
      entry,
      check,
      "channels of rln nodes (asset channels) are opened through RLN's API, not from lab.yaml",
    ),
  ],
  launch: (access, service) => ({
    program: { type: 'image', name: 'rln' },
    args: rlnArgs(access.placementFor(service.name)),
    env: {},
  }),
  // any answer will do: before /init and /unlock RLN answers its API with 403
  probe: (access, service) =>
    answersHttp(`http://${access.host.reach(service.name, 'api')}/networkinfo`, { anyStatus: true }),
  describe: (access, service) => describeRlnApi(access, service.name),
  credentials: async (access, service) => ({
    api: `http://${access.host.reach(service.name, 'api')}`,
    password: access.lab.secrets.rlnPassword,
  }),
  node: (access, name) => new RlnApiNode(name, 'rln', clientOf(access, name)),
  holdsAssets: true,
  initialise: initialiseRlnApi,
  afterFunding: createLabUtxos,
  clientEnv: (_access, name, placement) => ({ NODE_KIND: 'rln', RLN_URL: `http://${placement.reach(name, 'api')}` }),
};
