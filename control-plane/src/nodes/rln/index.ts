// RGB Lightning Node: runs from its image (docker runtime only, where the image can be built).
import { RlnClient } from '../../../../lib/rln/client.js';
import { waitFor } from '../../../../lib/wait.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { electrumTipHeight } from '../indexer/electrum.js';
import type { LabNode } from '../node.js';
import { answersHttp } from '../project-service.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { createColoredUtxos, initAndUnlock, rlnArgs, type RlnChainAccess } from './start-sequence.js';

const clientOf = (access: LabAccess, name: string) => new RlnClient(`http://${access.host.reach(name, 'api')}`);

/** The chain as RLN's start sequence needs it: blocks mined by the lab, served by the indexer. */
function chainAccess(access: LabAccess): RlnChainAccess {
  return {
    height: () => access.chain.getBlockCount(),
    mine: async (blocks) => void (await access.mine(blocks)),
    send: () => Promise.reject(new Error('the lab funds nodes itself')),
    indexedHeight: () => electrumTipHeight(access.host.reach('indexer', 'electrum')),
  };
}

class RlnLabNode implements LabNode {
  readonly kind = 'rln';
  constructor(readonly name: string, private readonly client: RlnClient) {}

  newAddress(): Promise<string> {
    return this.client.address();
  }

  async onchainBalance() {
    const { vanilla } = await this.client.btcBalance();
    return { confirmedSat: vanilla.settled, unconfirmedSat: vanilla.future - vanilla.settled };
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await this.client.networkInfo()).height >= height, { timeoutMs, what: `rln node ${this.name} to reach height ${height}` });
  }

  close(): void {}
}

export const rln: KindDefinition = {
  ports: { api: 3001, p2p: 9735 },
  image: 'rln',
  dependsOn: () => [CHAIN_SERVICE, 'indexer'],
  launch: (access, service) => ({ program: { type: 'image', name: 'rln' }, args: rlnArgs(access.placementFor(service.name)), env: {} }),
  // any answer will do: before /init and /unlock RLN answers its API with 403
  probe: (access, service) => answersHttp(`http://${access.host.reach(service.name, 'api')}/networkinfo`, { anyStatus: true }),
  async describe(access, service) {
    const described: Record<string, string> = { api: `http://${access.host.reach(service.name, 'api')}` };
    const info = await clientOf(access, service.name).nodeInfo().catch(() => undefined);
    if (info) described.pubkey = info.pubkey;
    return described;
  },
  credentials: async (access, service) => ({ api: `http://${access.host.reach(service.name, 'api')}`, password: access.lab.secrets.rlnPassword }),
  node: (access, name) => new RlnLabNode(name, clientOf(access, name)),
  async initialise(access, name) {
    const placement = access.placementFor(name);
    await initAndUnlock(clientOf(access, name), { password: access.lab.secrets.rlnPassword, chain: { kind: 'btcd' }, indexerUrl: `tcp://${placement.reach('indexer', 'electrum')}`, alias: name });
  },
  afterFunding: (access, name) => createColoredUtxos(clientOf(access, name), chainAccess(access)),
  clientEnv: (_access, name, placement) => ({ NODE_KIND: 'rln', RLN_URL: `http://${placement.reach(name, 'api')}` }),
};
