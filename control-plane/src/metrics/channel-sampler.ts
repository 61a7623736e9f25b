// The channels of a lab's Lightning nodes, as the metrics show them: read when a scrape asks, at
// most once per SAMPLE_MAX_AGE_MS for all the scrapes that ask meanwhile, each node given
// NODE_TIMEOUT_MS to answer. A scraper that asks every second does not make the nodes answer every
// second, and a node that does not answer (frozen, overloaded) holds no scrape, nor `reglab status`.
import { withTimeout } from '../../../lib/wait.js';
import type { LabSession } from '../lab/session.js';
import { isLightning } from '../nodes/node.js';

/** How old a sample may be before a scrape asks the nodes again. */
export const SAMPLE_MAX_AGE_MS = 10_000;
/** How long a node is given to list its channels. */
export const NODE_TIMEOUT_MS = 2_000;

export interface ChannelSide {
  /** The partner as the lab names it (its pubkey for a node not of the lab). */
  partner: string;
  localSat: number;
  remoteSat: number;
  active: boolean;
}

export interface NodeChannels {
  node: string;
  /** False when the node did not answer in time, or failed: its channels are then unknown. */
  answered: boolean;
  channels: ChannelSide[];
}

/** Reads each ready Lightning node's channels at once, partners named as the lab names them. */
async function readChannels(session: LabSession, timeoutMs: number): Promise<NodeChannels[]> {
  const { lab } = session;
  const names = new Map(lab.spec.nodes.map((node) => [lab.services[node.name]?.info.pubkey, node.name]));
  const readyNodes = lab.spec.nodes.filter((node) => lab.services[node.name]?.status === 'ready');
  const read = await Promise.all(
    readyNodes.map(async ({ name }): Promise<NodeChannels | undefined> => {
      try {
        const node = session.node(name);
        if (!isLightning(node)) return undefined;
        const channels = await withTimeout(node.lightning.channels.list(), timeoutMs);
        return {
          node: name,
          answered: true,
          channels: channels.map((channel) => ({
            partner: names.get(channel.partnerPubkey) ?? channel.partnerPubkey,
            localSat: channel.localSat,
            remoteSat: channel.remoteSat,
            active: channel.active,
          })),
        };
      } catch {
        return { node: name, answered: false, channels: [] };
      }
    }),
  );
  return read.filter((sample) => sample !== undefined);
}

/** The last sample of each session's channels, and the one being taken. */
export class ChannelSampler {
  private readonly samples = new WeakMap<LabSession, { at: number; channels: Promise<NodeChannels[]> }>();

  constructor(
    private readonly maxAgeMs = SAMPLE_MAX_AGE_MS,
    private readonly timeoutMs = NODE_TIMEOUT_MS,
  ) {}

  channels(session: LabSession): Promise<NodeChannels[]> {
    const last = this.samples.get(session);
    if (last && Date.now() - last.at < this.maxAgeMs) return last.channels;
    const channels = readChannels(session, this.timeoutMs);
    this.samples.set(session, { at: Date.now(), channels });
    return channels;
  }
}
