// An ldk node's own setting in lab.yaml, chain_source: where it takes its chain data from, and what
// that needs in the lab.
import type { SpecCheck, SpecEntry, SpecProblem } from '../types.js';

/** The lab's Electrum indexer, or its Esplora-style chain adapter. */
export type LdkChainSource = 'electrum' | 'esplora';

/** An ldk node that names no chain source follows the indexer. */
export const DEFAULT_LDK_CHAIN_SOURCE: LdkChainSource = 'electrum';

export interface LdkNodeSettings {
  chain_source: LdkChainSource;
}

export const LDK_NODE_SETTINGS = {
  chain_source: {
    enum: ['electrum', 'esplora'],
    description: 'ldk nodes: the lab indexer (electrum, the default) or the chain adapter (esplora)',
  },
};

/** An ldk node's chain source must run in the lab. */
export function checkChainSource(entry: SpecEntry, { lab }: SpecCheck): SpecProblem[] {
  const node = lab.nodes.find((candidate) => candidate.name === entry.name);
  const path = [...entry.path, node?.chain_source === undefined ? 'kind' : 'chain_source'];
  const source = node?.chain_source ?? DEFAULT_LDK_CHAIN_SOURCE;
  if (source === 'electrum' && !lab.indexer.enabled)
    return [
      {
        path,
        message:
          'ldk nodes follow the chain through the indexer (indexer.enabled: true), or through the chain adapter with chain_source: esplora',
      },
    ];
  if (source === 'esplora' && !lab.services['chain-adapter'])
    return [
      { path, message: 'chain_source: esplora needs the chain adapter in the lab (services: { chain-adapter: {} })' },
    ];
  return [];
}
