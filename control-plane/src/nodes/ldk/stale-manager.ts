// The channels LDK force-closed as it started because its ChannelManager on disk was older than their
// ChannelMonitors: what a kill between LDK's two writes leaves (nodes/ldk/README.md). The lab says so
// when the node is ready again, rather than leaving a user to find the closings in `reglab status`.
import type { LdkClient, LdkEvent } from '../../../../lib/lightning/ldk/api.js';

/** LDK's closure reason (ClosureReason::OutdatedChannelManager), as the daemon logs it. */
const STALE_MANAGER = /ChannelManager read from disk was stale/;

/**
 * What to tell of the channels the node's log says LDK closed for a stale ChannelManager at or after
 * `since` (an ISO time: the start), their partners named as the lab names them; undefined when none.
 */
export async function staleManagerClosures(
  api: Pick<LdkClient, 'events'>,
  since: string,
  names: ReadonlyMap<string, string>,
): Promise<string | undefined> {
  const from = Math.floor(Date.parse(since) / 1000);
  const closed = (await api.events()).filter(
    (event: LdkEvent) =>
      event.type === 'channel_closed' &&
      typeof event.time === 'number' &&
      event.time >= from &&
      typeof event.reason === 'string' &&
      STALE_MANAGER.test(event.reason),
  );
  if (closed.length === 0) return undefined;
  const partners = closed.map((event) => {
    const pubkey = String(event.counterparty_node_id ?? '');
    return names.get(pubkey) ?? (pubkey || 'a peer');
  });
  return (
    `LDK force-closed its channel${closed.length > 1 ? 's' : ''} with ${partners.join(', ')} as it started: its ` +
    'ChannelManager on disk was older than the channel monitors, as a kill between its two writes leaves it ' +
    '(nodes/ldk/README.md); the funds come back on-chain once the closing matures (mine blocks)'
  );
}
