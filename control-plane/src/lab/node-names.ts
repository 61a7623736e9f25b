import type { LabSession } from './session.js';

/** The lab's name of the node with `pubkey`, when it is one of the lab's. */
export function nodeNameOf(session: LabSession, pubkey: string): string | undefined {
  return session.lab.spec.nodes.find((node) => session.lab.services[node.name]?.info.pubkey === pubkey)?.name;
}
