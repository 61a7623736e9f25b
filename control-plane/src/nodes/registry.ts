// The registry of node kinds: adding a kind is a folder here, a line below, its name in lab.yaml's
// schema and an image recipe (images/).
import type { ImageFlavour, ImageId } from '../images/types.js';
import { btcd } from './btcd/index.js';
import { chainAdapter } from './chain-adapter/index.js';
import { faucet } from './faucet/index.js';
import { indexer } from './indexer/index.js';
import type { ServiceKind } from './kinds.js';
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

const KINDS: Record<ServiceKind, KindDefinition> = {
  btcd,
  lnd,
  ldk,
  rln,
  rgb,
  postgres,
  redis,
  indexer,
  'rgb-proxy': rgbProxy,
  'wallet-server': walletServer,
  faucet,
  'chain-adapter': chainAdapter,
  toxiproxy,
};

export function kindDefinition(kind: ServiceKind): KindDefinition {
  const definition = KINDS[kind];
  if (!definition) throw new Error(`no node kind "${kind}" in the registry (kinds: ${Object.keys(KINDS).join(', ')})`);
  return definition;
}

/** The image recipe that runs each of `kinds` in the docker runtime. */
export function imageRecipesFor(kinds: Iterable<ServiceKind>, flavour: ImageFlavour): Record<string, ImageId> {
  return Object.fromEntries(
    [...new Set(kinds)].map((kind) => {
      const definition = kindDefinition(kind);
      return [kind, flavour === 'upstream' ? (definition.upstreamImage ?? definition.image) : definition.image];
    }),
  );
}
