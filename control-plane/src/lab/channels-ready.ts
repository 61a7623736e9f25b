// Waiting for a lab's channels to be usable, with one poll loop per node (not one per channel and
// side): on two cores, a 20-node lab's waits must not compete with the nodes they wait for.
import { waitFor } from '../../../lib/wait.js';
import { dialChannelPartners, REDIAL_INTERVAL_MS, redialEvery } from '../nodes/reconnect.js';
import type { LabSession } from './session.js';

const CHANNELS_TIMEOUT_MS = 90_000;

export interface ChannelsExpected {
  /** Funding txids of the node's channels that must be active. */
  active: string[];
  /** How many channels of its graph the node must be able to route over. */
  routable?: number;
}

/**
 * Waits until `node` sees its channels `expected.active` active and can route over `expected.routable`
 * channels; `whileInactive` runs at each look that finds some still inactive.
 */
export async function waitNodeChannels(
  session: LabSession,
  node: string,
  expected: ChannelsExpected,
  options: { whileInactive?: () => Promise<void> } = {},
): Promise<void> {
  const lightning = session.lightning(node);
  // what is still missing is thrown, so a time-out says it
  await waitFor(
    async () => {
      const active = new Set(
        (await lightning.channels.list()).filter((channel) => channel.active).map((channel) => channel.fundingTxid),
      );
      const inactive = expected.active.filter((txid) => !active.has(txid));
      if (inactive.length > 0) {
        await options.whileInactive?.();
        throw new Error(`not active yet: the channels of ${inactive.join(', ')}`);
      }
      const routable = expected.routable === undefined ? undefined : await lightning.channels.routableChannels();
      if (routable !== undefined && routable < expected.routable!)
        throw new Error(`it can route over ${routable} of ${expected.routable} channels`);
      return true;
    },
    { timeoutMs: CHANNELS_TIMEOUT_MS, intervalMs: 300, what: `node ${node}'s channels to be ready` },
  );
}

/**
 * After every node of the lab restarted (a snapshot saved or restored): each Lightning node dials
 * the lab nodes it has inactive channels with (again every REDIAL_INTERVAL_MS while some stay
 * inactive), and waits until all its channels with them are active.
 */
export async function reconnectChannels(session: LabSession): Promise<void> {
  const lightningNodes = Object.values(session.lab.services)
    .filter((service) => service.info.pubkey)
    .map((service) => service.name);
  await Promise.all(
    lightningNodes.map(async (node) => {
      const { withLabNodes } = await dialChannelPartners(session, node);
      await waitNodeChannels(
        session,
        node,
        { active: withLabNodes.map((channel) => channel.fundingTxid) },
        {
          whileInactive: redialEvery(REDIAL_INTERVAL_MS, () => dialChannelPartners(session, node)),
        },
      );
    }),
  );
}
