// Which nodes of a lab a Lightning node opens P2P connections to: channels, `reglab connect` and the
// redials after a restart reach any other Lightning node of the lab.
import type { LabSpec } from '../spec/types.js';
import type { Dial } from './types.js';

/** The kinds whose nodes speak Lightning's P2P protocol with each other in a lab. */
const PEER_KINDS = new Set(['lnd', 'ldk']);

/** The P2P port of every other lnd and ldk node of the lab. */
export const lightningPeerDials = (name: string, spec: LabSpec): Dial[] =>
  spec.nodes
    .filter((node) => node.name !== name && PEER_KINDS.has(node.kind))
    .map((node) => ({ service: node.name, port: 'p2p' }));
