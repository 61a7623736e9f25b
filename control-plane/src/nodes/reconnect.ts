// Bringing a restarted Lightning node's channels with the other lab nodes back.
import { waitFor } from '../../../lib/wait.js';
import { isLightning, type ChannelView } from './node.js';
import type { LabAccess } from './types.js';

export interface ChannelPartners {
  /** The node's channels with lab nodes, active or not. */
  withLabNodes: ChannelView[];
  /** Those of them that were inactive, whose partner was dialled. */
  dialled: ChannelView[];
}

/**
 * Dials the lab nodes `name` has inactive channels with, at their lab addresses: lnd would, but on
 * its own back-off (which grows while its partners restart too) and only to the address it knew. A
 * partner that is down fails to answer, and dials back once it is up. With `readyPartnersOnly`,
 * only partners the lab reports ready are dialled.
 */
export async function dialChannelPartners(access: LabAccess, name: string, options: { readyPartnersOnly?: boolean } = {}): Promise<ChannelPartners> {
  const node = access.node(name);
  if (!isLightning(node)) return { withLabNodes: [], dialled: [] };
  const partners = new Map(Object.values(access.lab.services)
    .filter((service) => service.info.pubkey && (!options.readyPartnersOnly || service.status === 'ready'))
    .map((service) => [service.info.pubkey, service.name]));
  const withLabNodes = (await node.channels()).filter((channel) => partners.has(channel.partnerPubkey));
  const dialled = withLabNodes.filter((channel) => !channel.active);
  const placement = access.placementFor(name);
  await Promise.all(dialled.map((channel) => node.connect(channel.partnerPubkey, placement.reach(partners.get(channel.partnerPubkey)!, 'p2p')).catch(() => undefined)));
  return { withLabNodes, dialled };
}

/**
 * A kind's `initialise` after a restart, before the lab reports the node ready: dials its ready
 * channel partners and waits, for a bounded time, until those channels are active again, so a node
 * reported ready can pay.
 */
export async function reconnectChannelPeers(access: LabAccess, name: string): Promise<void> {
  const node = access.node(name);
  if (!isLightning(node)) return;
  const { dialled } = await dialChannelPartners(access, name, { readyPartnersOnly: true });
  if (dialled.length === 0) return;
  await waitFor(async () => {
    const active = new Set((await node.channels()).filter((channel) => channel.active).map((channel) => channel.id));
    return dialled.every((channel) => active.has(channel.id));
  }, { timeoutMs: 30_000, intervalMs: 200, what: `the channels of ${name} to be active again` }).catch(() => undefined);
}
