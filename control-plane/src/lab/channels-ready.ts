// Waiting for a lab's channels to be usable, with one poll loop per node (not one per channel and
// side): on two cores, a 20-node lab's waits must not compete with the nodes they wait for.
import { waitFor } from '../../../lib/wait.js';
import type { LabSession } from './session.js';

export interface ChannelsExpected {
  /** Funding txids of the node's channels that must be active. */
  active: string[];
  /** How many channels of its graph the node must be able to route over. */
  routable?: number;
}

/** Waits until `node` sees its channels `expected.active` active and can route over `expected.routable` channels. */
export async function waitNodeChannels(session: LabSession, node: string, expected: ChannelsExpected, timeoutMs = 90_000): Promise<void> {
  const lightning = session.lightning(node);
  // what is still missing is thrown, so a time-out says it
  await waitFor(async () => {
    const active = new Set((await lightning.channels()).filter((channel) => channel.active).map((channel) => channel.fundingTxid));
    const inactive = expected.active.filter((txid) => !active.has(txid));
    if (inactive.length > 0) throw new Error(`not active yet: the channels of ${inactive.join(', ')}`);
    const routable = expected.routable === undefined ? undefined : await lightning.routableChannels();
    if (routable !== undefined && routable < expected.routable!) throw new Error(`it can route over ${routable} of ${expected.routable} channels`);
    return true;
  }, { timeoutMs, intervalMs: 300, what: `node ${node}'s channels to be ready` });
}

/** The lab's Lightning nodes, by pubkey. */
function labNodesByPubkey(session: LabSession): Map<string, string> {
  return new Map(Object.values(session.lab.services).filter((service) => service.info.pubkey).map((service) => [service.info.pubkey, service.name]));
}

/**
 * Dials the lab nodes `node` has inactive channels with, at their lab addresses (a partner still
 * down fails to answer, and dials back once it is up); returns the funding txids of its channels
 * with lab nodes.
 */
export async function dialChannelPartners(session: LabSession, node: string, byPubkey = labNodesByPubkey(session)): Promise<string[]> {
  const lightning = session.lightning(node);
  const withLabNodes = (await lightning.channels()).filter((channel) => byPubkey.has(channel.partnerPubkey));
  const inactive = withLabNodes.filter((channel) => !channel.active);
  await Promise.all(inactive.map((channel) => lightning.connect(channel.partnerPubkey, session.peerAddress(node, byPubkey.get(channel.partnerPubkey)!)).catch(() => undefined)));
  return withLabNodes.map((channel) => channel.fundingTxid);
}

/**
 * After every node of the lab restarted (a snapshot saved or restored): each Lightning node dials
 * the lab nodes it has channels with — lnd would, but on its own backoff, and only to the address
 * it knew — and waits until those channels are active.
 */
export async function reconnectChannels(session: LabSession): Promise<void> {
  const byPubkey = labNodesByPubkey(session);
  await Promise.all([...byPubkey.values()].map(async (node) => {
    await waitNodeChannels(session, node, { active: await dialChannelPartners(session, node, byPubkey) });
  }));
}
