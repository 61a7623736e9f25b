// Bringing a restarted Lightning node's channels with the other lab nodes back.
import { describeError } from '../../../lib/errors.js';
import { waitFor } from '../../../lib/wait.js';
import type { Channel } from '../../../lib/lightning/client.js';
import { RUNNING_STATUSES, type ServiceStatus } from '../lab/state.js';
import { isPartitioned } from '../network/model.js';
import { isLightning } from './node.js';
import type { LabAccess } from './types.js';

export interface ChannelPartners {
  /** The node's channels with lab nodes, active or not. */
  withLabNodes: Channel[];
  /** Those of them that were inactive, whose partner was dialled. */
  dialled: Channel[];
  /** Why a dial failed, by the partner's pubkey. */
  failures: Map<string, string>;
}

/** The lab nodes `name` may dial, by pubkey: in `partnerStatuses` when given, never one a partition cuts it off from. */
function partnersOf(access: LabAccess, name: string, partnerStatuses?: ReadonlySet<ServiceStatus>) {
  return new Map(
    Object.values(access.lab.services)
      .filter(
        (service) =>
          service.info.pubkey &&
          (!partnerStatuses || partnerStatuses.has(service.status)) &&
          !isPartitioned(access.lab.network, name, service.name),
      )
      .map((service) => [service.info.pubkey as string, service.name]),
  );
}

/**
 * Dials the lab nodes `name` has inactive channels with, at their lab addresses: lnd would, but on
 * its own back-off (which grows while its partners restart too) and only to the address it knew. A
 * partner that is down fails to answer, and dials back once it is up. With `partnerStatuses`, only
 * partners the lab reports in one of them are dialled; never one a network partition cuts it off from.
 */
export async function dialChannelPartners(
  access: LabAccess,
  name: string,
  options: { partnerStatuses?: ReadonlySet<ServiceStatus> } = {},
): Promise<ChannelPartners> {
  const node = access.node(name);
  const failures = new Map<string, string>();
  if (!isLightning(node)) return { withLabNodes: [], dialled: [], failures };
  const partners = partnersOf(access, name, options.partnerStatuses);
  const { channels } = node.lightning;
  const withLabNodes = (await channels.list()).filter((channel) => partners.has(channel.partnerPubkey));
  const dialled = withLabNodes.filter((channel) => !channel.active);
  const placement = access.placementFor(name);
  await Promise.all(
    dialled.map((channel) =>
      channels
        .connectPeer(channel.partnerPubkey, placement.reach(partners.get(channel.partnerPubkey)!, 'p2p'))
        .catch((error: unknown) => failures.set(channel.partnerPubkey, describeError(error))),
    ),
  );
  return { withLabNodes, dialled, failures };
}

/**
 * Has each partner of `inactive` drop its connection to `name` and dial it: a partner that still
 * holds a session of the node from before its restart takes no new one, whoever dials. Answers why a
 * partner's dial failed, by its pubkey.
 */
async function dialFromPartners(access: LabAccess, name: string, inactive: Channel[]): Promise<Map<string, string>> {
  const failures = new Map<string, string>();
  const pubkey = access.lab.services[name]?.info.pubkey;
  if (!pubkey) return failures;
  const partners = partnersOf(access, name, READY);
  await Promise.all(
    inactive.map(async (channel) => {
      const partnerName = partners.get(channel.partnerPubkey);
      if (partnerName === undefined) return;
      const partner = access.node(partnerName);
      if (!isLightning(partner)) return;
      await partner.lightning.channels.disconnectPeer(pubkey).catch(() => undefined); // not connected: nothing to drop
      await partner.lightning.channels
        .connectPeer(pubkey, access.placementFor(partnerName).reach(name, 'p2p'))
        .catch((error: unknown) =>
          failures.set(channel.partnerPubkey, `${partnerName}'s dial: ${describeError(error)}`),
        );
    }),
  );
  return failures;
}

/** How long a restarted node waits for its channels with ready partners to be active again. */
const REACTIVATION_TIMEOUT_MS = 30_000;
/**
 * How often it dials again the partners of channels still inactive: a first connection can be lost
 * (both sides dialling at once, a partner itself just started), and lnd's own retry waits twice as
 * long each time (1, 2, 4, 8, 16 s...), so a lost dial could hold the node's start for half a minute.
 */
export const REDIAL_INTERVAL_MS = 2_000;

const READY: ReadonlySet<ServiceStatus> = new Set(['ready']);

/**
 * A kind's `initialise` after a restart, before the lab reports the node ready: dials its ready
 * channel partners (those in `partnerStatuses`) and waits, for a bounded time, until those channels
 * are active again (dialling again every REDIAL_INTERVAL_MS, and from halfway through also from the
 * partners' side), so a node reported ready can pay. Answers, for the event of its being ready, the
 * channels still inactive after the wait and what their last dials said.
 */
export async function reconnectChannelPeers(
  access: LabAccess,
  name: string,
  timing = { timeoutMs: REACTIVATION_TIMEOUT_MS, redialMs: REDIAL_INTERVAL_MS },
  partnerStatuses = READY,
): Promise<string | undefined> {
  const node = access.node(name);
  if (!isLightning(node)) return undefined;
  const first = await dialChannelPartners(access, name, { partnerStatuses });
  if (first.dialled.length === 0) return undefined;
  let failures = first.failures;
  let inactive = first.dialled;
  const startedAt = Date.now();
  let partnersDialled = false;
  const partnerFailures = new Map<string, string>();
  const redial = redialEvery(timing.redialMs, async () => {
    failures = (await dialChannelPartners(access, name, { partnerStatuses })).failures;
    if (partnersDialled || Date.now() - startedAt < timing.timeoutMs / 2) return;
    partnersDialled = true;
    for (const [pubkey, why] of await dialFromPartners(access, name, inactive)) partnerFailures.set(pubkey, why);
  });
  const reactivated = await waitFor(
    async () => {
      const active = new Set(
        (await node.lightning.channels.list()).filter((channel) => channel.active).map((channel) => channel.id),
      );
      inactive = first.dialled.filter((channel) => !active.has(channel.id));
      if (inactive.length === 0) return true;
      await redial();
      return false;
    },
    { timeoutMs: timing.timeoutMs, intervalMs: 200, what: `the channels of ${name} to be active again` },
  ).catch(() => false);
  if (reactivated) return undefined;
  const partnerNames = partnersOf(access, name);
  const still = inactive.map((channel) => {
    const partner = partnerNames.get(channel.partnerPubkey) ?? channel.partnerPubkey.slice(0, 16);
    const dials = [failures.get(channel.partnerPubkey), partnerFailures.get(channel.partnerPubkey)];
    const why = dials.filter(Boolean).join('; ') || 'dialled, the channel not re-established';
    return { partner, text: `with ${partner} (${why})` };
  });
  return (
    `channels still inactive ${Math.round(timing.timeoutMs / 1000)} s after the start: ${still.map((one) => one.text).join(', ')}; ` +
    `the node keeps dialling on its own, \`reglab connect ${name} ${still[0]!.partner}\` dials at once`
  );
}

/**
 * After every connection between the lab's nodes was cut at once (the network proxy of a lab with
 * network faults restarted): each running Lightning node dials its running channel partners and
 * waits, as a restarted node does, until those channels are active again. lnd would dial them
 * itself, but after its own back-off, which grew while the proxy was down.
 */
export async function reconnectRunningNodes(access: LabAccess): Promise<void> {
  const running = access.lab.spec.nodes.filter((node) =>
    RUNNING_STATUSES.has(access.lab.services[node.name]?.status ?? 'pending'),
  );
  await Promise.all(
    running.map((node) => reconnectChannelPeers(access, node.name, undefined, RUNNING_STATUSES).catch(() => undefined)),
  );
}

/** A step for a wait loop that runs `dial` when `intervalMs` have passed since it was made or last dialled. */
export function redialEvery(intervalMs: number, dial: () => Promise<unknown>): () => Promise<void> {
  let dialledAt = Date.now();
  return async () => {
    if (Date.now() - dialledAt < intervalMs) return;
    dialledAt = Date.now();
    await dial();
  };
}
