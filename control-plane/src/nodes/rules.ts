// lab.yaml rules that several kinds share, for their validate hooks.
import type { SpecCheck, SpecEntry, SpecProblem } from './types.js';

/** A node that follows the chain through the lab's indexer needs it. */
export function needsIndexer(entry: SpecEntry, { lab }: SpecCheck): SpecProblem[] {
  const kind = lab.nodes.find((node) => node.name === entry.name)?.kind;
  return lab.indexer.enabled
    ? []
    : [
        {
          path: [...entry.path, 'kind'],
          message: `${kind} nodes follow the chain through the indexer (indexer.enabled: true)`,
        },
      ];
}

/** Each end of lab.yaml's channels that is node `entry`, refused with `message`. */
export function refuseChannelsOf(entry: SpecEntry, { lab }: SpecCheck, message: string): SpecProblem[] {
  return lab.channels.flatMap((channel, index) =>
    (['from', 'to'] as const)
      .filter((end) => channel[end] === entry.name)
      .map((end) => ({ path: ['channels', index, end], message })),
  );
}
