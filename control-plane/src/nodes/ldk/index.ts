// LDK nodes: reglab-ldk (nodes/ldk), an ldk-node daemon with an HTTP JSON API, on the lab's
// Electrum indexer or its Esplora-style chain adapter.
import { LdkClient } from '../../../../lib/ldk/client.js';
import { announcedAddress } from '../../network/placement.js';
import { DEFAULT_LDK_CHAIN_SOURCE, type LabSpec, type LdkChainSource } from '../../spec/types.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { lightningPeerDials } from '../lightning-peers.js';
import { answersHttp } from '../project-service.js';
import { reconnectChannelPeers } from '../reconnect.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { LDK_CHAIN_SOURCES, ldkLaunch } from './launch.js';
import { LdkLabNode } from './lightning.js';

const chainSourceOf = (spec: LabSpec, name: string): LdkChainSource =>
  spec.nodes.find((node) => node.name === name)?.chain_source ?? DEFAULT_LDK_CHAIN_SOURCE;

const apiUrl = (access: LabAccess, name: string) => `http://${access.host.reach(name, 'api')}`;

export const ldk: KindDefinition = {
  ports: { api: 3000, p2p: 9735 },
  image: 'ldk',
  dependsOn: (name, spec) => [CHAIN_SERVICE, LDK_CHAIN_SOURCES[chainSourceOf(spec, name)].service],
  dials: (name, spec) => [LDK_CHAIN_SOURCES[chainSourceOf(spec, name)], ...lightningPeerDials(name, spec)],
  launch(access, service) {
    const placement = access.placementFor(service.name);
    return ldkLaunch(placement, {
      alias: service.name,
      announceAddress: announcedAddress(access.lab, placement, service.name) ?? placement.reach(service.name, 'p2p'),
      chainSource: chainSourceOf(access.lab.spec, service.name),
    });
  },
  /** Ready once synced with its chain source, listening and answering (GET /health is 200 from then on). */
  probe: (access, service) => answersHttp(`${apiUrl(access, service.name)}/health`),
  async describe(access, service) {
    const { pubkey } = await (access.node(service.name) as LdkLabNode).info();
    return {
      pubkey,
      api: apiUrl(access, service.name),
      docs: `${apiUrl(access, service.name)}/openapi.json`,
      p2p: access.host.reach(service.name, 'p2p'),
    };
  },
  // the daemon's API takes no credentials: its URL is all a developer needs
  credentials: async (access, service) => ({ api: apiUrl(access, service.name) }),
  node: (access, name) => new LdkLabNode(name, new LdkClient(apiUrl(access, name)), access.chain),
  initialise: reconnectChannelPeers,
  clientEnv: (_access, name, placement) => ({ NODE_KIND: 'ldk', LDK_URL: `http://${placement.reach(name, 'api')}` }),
};
