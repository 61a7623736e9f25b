// LDK nodes: reglab-ldk (nodes/ldk), an ldk-node daemon with an HTTP JSON API, on the lab's
// Electrum indexer or its Esplora-style chain adapter.
import { localImage } from '../../images/recipes.js';
import { lightningClient, lightningEnv } from '../../../../lib/lightning/implementations.js';
import { LdkClient } from '../../../../lib/lightning/ldk/api.js';
import { announcedAddress } from '../../network/placement.js';
import type { LabSpec } from '../../spec/types.js';
import { nodeUriOf } from '../../connect/node-uri.js';
import { CHAIN_SERVICE } from '../btcd/index.js';
import { lightningPeerDials } from '../lightning-peers.js';
import { answersHttp } from '../project-service.js';
import { reconnectChannelPeers } from '../reconnect.js';
import type { KindDefinition, LabAccess } from '../types.js';
import { LDK_DAEMON_BUILD } from './daemon-build.js';
import { staleManagerClosures } from './stale-manager.js';
import { LDK_CHAIN_SOURCES, ldkLaunch } from './launch.js';
import { checkChainSource, DEFAULT_LDK_CHAIN_SOURCE, LDK_NODE_SETTINGS, type LdkChainSource } from './settings.js';
import { isLightning, lightningNode } from '../node.js';

const chainSourceOf = (spec: LabSpec, name: string): LdkChainSource =>
  spec.nodes.find((node) => node.name === name)?.chain_source ?? DEFAULT_LDK_CHAIN_SOURCE;

const apiUrl = (access: LabAccess, name: string) => `http://${access.host.reach(name, 'api')}`;

export const ldk: KindDefinition = {
  ports: { api: 3000, p2p: 9735 },
  image: localImage('ldk', {
    binaries: ['reglab-ldk'],
    buildScript: 'scripts/build-ldk.sh',
    entrypoint: ['/usr/local/bin/reglab-ldk'],
  }),
  binaryBuild: LDK_DAEMON_BUILD,
  nodeSettings: LDK_NODE_SETTINGS,
  validate: checkChainSource,
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
    const node = access.node(service.name);
    if (!isLightning(node)) throw new Error(`${service.name} is not a Lightning node`);
    const { pubkey } = await node.lightning.info();
    return {
      pubkey,
      api: apiUrl(access, service.name),
      docs: `${apiUrl(access, service.name)}/openapi.json`,
      p2p: access.host.reach(service.name, 'p2p'),
    };
  },
  // the daemon's API takes no credentials: its URL is all a developer needs
  credentials: async (access, service) => ({ api: apiUrl(access, service.name) }),
  connectInfo: async (access, service) => ({
    uris: {
      api: apiUrl(access, service.name),
      openapi: `${apiUrl(access, service.name)}/openapi.json`,
      ...nodeUriOf(access, service),
    },
    notes: ["the daemon's HTTP API takes no credentials (nodes/ldk/README.md)"],
  }),
  node: (access, name) =>
    lightningNode(name, 'ldk', lightningClient('ldk', { url: apiUrl(access, name), chain: access.chain }, { name })),
  async initialise(access, name) {
    const stillInactive = await reconnectChannelPeers(access, name);
    const names = new Map(
      Object.values(access.lab.services).flatMap((service) =>
        service.info.pubkey ? [[service.info.pubkey, service.name] as const] : [],
      ),
    );
    const closed = await staleManagerClosures(
      new LdkClient(apiUrl(access, name)),
      access.lab.services[name]!.since,
      names,
    );
    return [closed, stillInactive].filter(Boolean).join('; ') || undefined;
  },
  clientEnv: (_access, name, placement) => lightningEnv('ldk', { url: `http://${placement.reach(name, 'api')}` }),
};
