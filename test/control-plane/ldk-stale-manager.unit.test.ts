// What the lab tells when an LDK node, killed between LDK's two writes, force-closed channels as it
// started again: the closings of this start with LDK's stale-manager reason, partners by lab name.
import { describe, expect, it } from 'vitest';
import type { LdkEvent } from '../../lib/lightning/ldk/api.js';
import { staleManagerClosures } from '../../control-plane/src/nodes/ldk/stale-manager.js';

const STALE = 'Channel closed because the ChannelManager read from disk was stale compared to ChannelMonitor(s)';
const ALICE = `02${'a'.repeat(64)}`;
const CAROL = `03${'c'.repeat(64)}`;
const names = new Map([
  [ALICE, 'alice'],
  [CAROL, 'carol'],
]);
const START = '2026-11-29T02:29:28.000Z';
const at = (iso: string) => Math.floor(Date.parse(iso) / 1000);

const closed = (id: number, time: number, counterparty: string, reason: string): LdkEvent => ({
  id,
  type: 'channel_closed',
  channel_id: id.toString(16).padStart(64, '0'),
  counterparty_node_id: counterparty,
  reason,
  time,
});
const logOf = (events: LdkEvent[]) => ({ events: async () => events });

describe("an LDK node's channels force-closed at start for a stale ChannelManager", () => {
  it('names the partners of the closings of this start, and says why and what to do', async () => {
    const told = await staleManagerClosures(
      logOf([
        { id: 1, type: 'payment_received', time: at(START) - 60 },
        closed(2, at(START) + 1, ALICE, STALE),
        closed(3, at(START) + 1, CAROL, STALE),
      ]),
      START,
      names,
    );
    expect(told).toMatch(/^LDK force-closed its channels with alice, carol as it started: /);
    expect(told).toContain('nodes/ldk/README.md');
    expect(told).toContain('mine blocks');
  });

  it('tells nothing of closings before this start, or of closings for other reasons', async () => {
    const told = await staleManagerClosures(
      logOf([
        closed(1, at(START) - 120, ALICE, STALE),
        closed(2, at(START) + 5, CAROL, 'Channel closed because user force-closed'),
      ]),
      START,
      names,
    );
    expect(told).toBeUndefined();
  });

  it('names a partner the lab does not know by its pubkey', async () => {
    const stranger = `02${'e'.repeat(64)}`;
    expect(await staleManagerClosures(logOf([closed(1, at(START), stranger, STALE)]), START, names)).toMatch(
      new RegExp(`^LDK force-closed its channel with ${stranger} as it started`),
    );
  });
});
