// What a Lightning node does after a restart, before the lab reports it ready.
import { waitFor } from '../../../lib/wait.js';
import { isLightning } from './node.js';
import type { LabAccess } from './types.js';

/**
 * Dials the lab nodes it has channels with (a node would, but on its own backoff, and only to the
 * address it knew) and waits, for a bounded time, until those channels are active again: a node
 * reported ready can pay.
 */
export async function reconnectChannelPeers(access: LabAccess, name: string): Promise<void> {
  const node = access.node(name);
  if (!isLightning(node)) return;
  const peers = new Map(Object.values(access.lab.services).filter((service) => service.status === 'ready' && service.info.pubkey).map((service) => [service.info.pubkey, service.name]));
  const waiting = (await node.channels()).filter((channel) => !channel.active && peers.has(channel.partnerPubkey));
  if (waiting.length === 0) return;
  const placement = access.placementFor(name);
  await Promise.all(waiting.map((channel) => node.connect(channel.partnerPubkey, placement.reach(peers.get(channel.partnerPubkey)!, 'p2p')).catch(() => undefined)));
  await waitFor(async () => {
    const active = new Set((await node.channels()).filter((channel) => channel.active).map((channel) => channel.id));
    return waiting.every((channel) => active.has(channel.id));
  }, { timeoutMs: 30_000, intervalMs: 200, what: `the channels of ${name} to be active again` }).catch(() => undefined);
}
