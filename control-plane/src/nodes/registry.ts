// The registry of node kinds, where each kind is named once: adding a kind is a folder here and a
// line below. lab.yaml's schema, the spec's types, the image catalog and the Lightning kinds all come
// from these lists; a Lightning kind is one of lib/lightning's implementations.
import type { LightningImplementation } from '../../../lib/lightning/implementations.js';
import type { ImageFlavour, ImageId } from '../images/types.js';
import type { OnDemandBuild } from './binary-build.js';
import { btcd } from './btcd/index.js';
import { chainAdapter } from './chain-adapter/index.js';
import { faucet } from './faucet/index.js';
import { indexer } from './indexer/index.js';
import { ldk } from './ldk/index.js';
import { lnd } from './lnd/index.js';
import { postgres } from './postgres/index.js';
import { redis } from './redis/index.js';
import { rgb } from './rgb/index.js';
import { rgbProxy } from './rgb-proxy/index.js';
import { rln } from './rln/index.js';
import { toxiproxy } from './toxiproxy/index.js';
import type { KindDefinition } from './types.js';
import { walletServer } from './wallet-server/index.js';

/** The Lightning kinds: one for each implementation lib/lightning speaks to. */
const LIGHTNING_KINDS: Record<LightningImplementation, KindDefinition> = { lnd, ldk, rln };

/** The kinds of lab.yaml's nodes[]; the first is a node's kind when it names none. */
const NODE_KINDS = { ...LIGHTNING_KINDS, rgb };

/** Every kind of service a lab can run. */
const KINDS = {
  btcd,
  ...NODE_KINDS,
  postgres,
  redis,
  indexer,
  'rgb-proxy': rgbProxy,
  'wallet-server': walletServer,
  faucet,
  'chain-adapter': chainAdapter,
  toxiproxy,
};

export type ServiceKind = keyof typeof KINDS;
export type NodeKind = keyof typeof NODE_KINDS;
export const NODE_KIND_NAMES = Object.keys(NODE_KINDS) as [NodeKind, ...NodeKind[]];

export function kindDefinition(kind: ServiceKind): KindDefinition {
  const definition: KindDefinition | undefined = KINDS[kind];
  if (!definition) throw new Error(`no node kind "${kind}" in the registry (kinds: ${Object.keys(KINDS).join(', ')})`);
  return definition;
}

/** Whether nodes of `kind` make and take Lightning payments. */
export const isLightningKind = (kind: ServiceKind): boolean => kind in LIGHTNING_KINDS;

export const allKinds = (): KindDefinition[] => Object.values(KINDS);

/** The kinds of nodes[] that `has` says yes of, by name (for messages and lab.yaml's rules). */
export const nodeKindsWhere = (has: (kind: KindDefinition) => boolean): NodeKind[] =>
  NODE_KIND_NAMES.filter((name) => has(NODE_KINDS[name]));

/** The image recipe that runs each of `kinds` in the docker runtime. */
export function imageRecipesFor(kinds: Iterable<ServiceKind>, flavour: ImageFlavour): Record<string, ImageId> {
  return Object.fromEntries(
    [...new Set(kinds)].map((kind) => {
      const definition = kindDefinition(kind);
      return [kind, (flavour === 'upstream' ? (definition.upstreamImage ?? definition.image) : definition.image).id];
    }),
  );
}

/** The node binaries built on demand (not by setup.sh) that some of `kinds` run. */
export function binaryBuildsFor(kinds: Iterable<ServiceKind>): OnDemandBuild[] {
  return [...new Set(kinds)].flatMap((kind) => kindDefinition(kind).binaryBuild ?? []);
}
