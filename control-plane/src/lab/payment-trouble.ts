// Why a lab payment cannot go, or did not, in words a person can act on: which channel is inactive
// and why (its partner stopped, not connected), which node does not answer (frozen, overloaded).
// lnd only says "InsufficientBalanceToAttemptPayment", or holds the payment while a node is frozen.
import { conflict, DomainError } from '../../../lib/errors.js';
import { waitFor } from '../../../lib/wait.js';
import type { Channel } from '../../../lib/lightning/client.js';
import { isLightning, type LabLightning } from '../nodes/node.js';
import { nodeNameOf } from './node-names.js';
import { FINAL_PAYMENT_REFUSALS } from './payment-errors.js';
import type { LabSession } from './session.js';

/** How long a node is given to answer before the lab says it does not (a busy one answers within it). */
const ANSWER_MS = 3_000;
/** How long a payer whose channels are being re-established (its partners connected) is given. */
const REESTABLISH_MS = 10_000;

/** Whether the node answers within ANSWER_MS (a frozen process holds the call). */
async function answers(node: LabLightning): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ANSWER_MS)));
  try {
    return await Promise.race([
      node.channels.ping().then(
        () => true,
        () => false,
      ),
      silent,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

interface Partner {
  name: string;
  /** A lab node the lab reports ready. */
  ready: boolean;
  status?: string;
}

function partnerOf(session: LabSession, channel: Channel): Partner {
  const name = nodeNameOf(session, channel.partnerPubkey);
  const status = name === undefined ? undefined : session.lab.services[name]?.status;
  return { name: name ?? `${channel.partnerPubkey.slice(0, 16)}…`, ready: status === 'ready', status };
}

/** Why each of `node`'s inactive channels is; `reestablishing` when its partner is connected. */
async function inactiveChannels(
  session: LabSession,
  name: string,
  node: LabLightning,
  channels: Channel[],
): Promise<{ partner: string; why: string; reestablishing: boolean }[]> {
  const inactive = channels.filter((channel) => !channel.active);
  if (inactive.length === 0) return [];
  const connected = new Set(await node.channels.connectedPeers());
  return inactive.map((channel) => {
    const partner = partnerOf(session, channel);
    const reestablishing = connected.has(channel.partnerPubkey);
    const why =
      partner.status !== undefined && !partner.ready
        ? `${partner.name} is ${partner.status}${partner.status === 'stopped' ? ` (\`reglab start ${partner.name}\`)` : ''}`
        : reestablishing
          ? `${partner.name} is connected, the channel is not re-established yet`
          : `${partner.name} is not connected (\`reglab connect ${name} ${partner.name}\`)`;
    return { partner: partner.name, why, reestablishing };
  });
}

/**
 * Refuses, before anything is sent, a payment `payer` cannot make: every channel of it inactive (a
 * channel being re-established after a restart is given a moment), or every active one going to a
 * node that does not answer, which would hold the payment until it does.
 */
export async function assertCanSend(session: LabSession, payer: string): Promise<void> {
  const node = session.lightning(payer);
  let channels = await node.channels.list();
  if (channels.length === 0) return; // lnd and LDK say so themselves
  if (!channels.some((channel) => channel.active)) {
    const inactive = await inactiveChannels(session, payer, node, channels);
    if (inactive.some((channel) => channel.reestablishing))
      channels = await waitFor(
        async () => {
          const now = await node.channels.list();
          return now.some((channel) => channel.active) ? now : undefined;
        },
        { timeoutMs: REESTABLISH_MS, intervalMs: 250, what: `a channel of ${payer} to be active again` },
      ).catch(() => channels);
    if (!channels.some((channel) => channel.active))
      throw conflict(
        'CHANNEL_INACTIVE',
        `${payer} cannot pay: ${inactive.map((channel) => `${payer}'s channel to ${channel.partner} is inactive: ${channel.why}`).join('; ')}; nothing was sent`,
      );
  }
  const partners = channels.filter((channel) => channel.active).map((channel) => partnerOf(session, channel));
  const answering = await Promise.all(
    partners.map((partner) => !partner.ready || answers(session.lightning(partner.name))),
  );
  const silent = partners.filter((_partner, index) => !answering[index]).map((partner) => partner.name);
  if (silent.length > 0 && silent.length === partners.length)
    throw conflict(
      'PEER_NOT_ANSWERING',
      `${payer} cannot pay: ${silent.map((partner) => `${partner} does not answer (frozen, or overloaded)`).join('; ')}, and a payment over ${silent.length === 1 ? 'it' : 'them'} would wait until it answers again; nothing was sent`,
    );
}

/** The lab's Lightning nodes that do not answer, and their inactive channels with why, in words. */
async function labTrouble(session: LabSession): Promise<string[]> {
  const nodes = session.lab.spec.nodes
    .filter((spec) => session.lab.services[spec.name]?.status === 'ready')
    .map((spec) => session.node(spec.name))
    .filter(isLightning)
    .map((node) => ({ name: node.name, node: node.lightning }));
  const answering = await Promise.all(nodes.map(({ node }) => answers(node)));
  const troubles = nodes
    .filter((_entry, index) => !answering[index])
    .map(({ name }) => `${name} does not answer (frozen, or overloaded)`);
  const seen = new Set<string>();
  for (const { name, node } of nodes.filter((_entry, index) => answering[index])) {
    for (const channel of await inactiveChannels(session, name, node, await node.channels.list())) {
      const pair = [name, channel.partner].sort().join(' ');
      if (seen.has(pair)) continue;
      seen.add(pair);
      troubles.push(`${name}'s channel to ${channel.partner} is inactive: ${channel.why}`);
    }
  }
  return troubles;
}

/** A payment the node gave up or still holds, with what in the lab stands in its way. */
export async function explainPayment<T>(session: LabSession, paying: () => Promise<T>): Promise<T> {
  try {
    return await paying();
  } catch (error) {
    if (!(error instanceof DomainError) || !FINAL_PAYMENT_REFUSALS.has(error.code)) throw error;
    const troubles = await labTrouble(session).catch(() => []);
    if (troubles.length === 0) throw error;
    throw new DomainError(
      error.kind,
      error.code,
      `${error.message}; in the lab: ${troubles.join('; ')}`,
      error.details,
      {
        cause: error,
      },
    );
  }
}
