// A Lightning node's URI, PUBKEY@HOST:PORT: what a peer connects to, or opens a channel with.
import type { ServiceState } from '../lab/state.js';
import type { LabAccess } from '../nodes/types.js';

/** `{ nodeUri }` of a node whose pubkey the lab knows (from its first time ready), else nothing. */
export function nodeUriOf(access: LabAccess, service: ServiceState): { nodeUri?: string } {
  const pubkey = service.info.pubkey;
  return pubkey ? { nodeUri: `${pubkey}@${access.host.reach(service.name, 'p2p')}` } : {};
}
