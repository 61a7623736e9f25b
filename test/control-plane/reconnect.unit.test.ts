// A restarted Lightning node bringing its channels with ready lab nodes back (nodes/reconnect.ts).
import { describe, expect, it } from 'vitest';
import { pairOf } from '../../control-plane/src/network/model.js';
import { reconnectChannelPeers, reconnectRunningNodes } from '../../control-plane/src/nodes/reconnect.js';

const BOB = '02'.padEnd(66, 'b');
const CAROL = '03'.padEnd(66, 'c');

/**
 * Node alice, just restarted, with a channel to bob (ready) and one to carol (still starting). Each
 * channel turns active once its partner has been dialled `dialsNeeded` times: a first connection
 * that is lost, as when both sides dial at once.
 */
function labWith(
  dialsNeeded: number,
  statuses = { alice: 'starting', bob: 'ready', carol: 'starting' },
  network?: { links: unknown[]; faults: Record<string, { partitioned?: boolean }> },
) {
  const dials: string[] = [];
  const dialsTo = (pubkey: string) => dials.filter((dialled) => dialled === pubkey).length;
  const channel = (id: string, partnerPubkey: string) => ({
    id,
    partnerPubkey,
    active: dialsTo(partnerPubkey) >= dialsNeeded,
    capacitySat: 500_000,
    localSat: 0,
    remoteSat: 0,
    private: false,
    fundingTxid: id,
    fundingVout: 0,
  });
  const channels = {
    list: async () => [channel('alice-bob', BOB), channel('alice-carol', CAROL)],
    connectPeer: async (pubkey: string) => {
      dials.push(pubkey);
    },
  };
  const alice = { lightning: { channels } };
  const service = (name: string, status: string, pubkey: string) => ({ name, status, info: { pubkey } });
  const access = {
    lab: {
      services: {
        alice: service('alice', statuses.alice, '02'.padEnd(66, 'a')),
        bob: service('bob', statuses.bob, BOB),
        carol: service('carol', statuses.carol, CAROL),
      },
      spec: { nodes: [{ name: 'alice' }] },
      network,
    },
    node: () => alice,
    placementFor: () => ({ reach: (partner: string) => `${partner}:9735` }),
  } as unknown as Parameters<typeof reconnectChannelPeers>[0];
  return { access, channels, dialsTo };
}

describe('reconnectChannelPeers', () => {
  it('dials a ready partner again while their channel stays inactive, and stops once it is active', async () => {
    const { access, channels, dialsTo } = labWith(3);
    await reconnectChannelPeers(access, 'alice', { timeoutMs: 10_000, redialMs: 50 });
    expect(dialsTo(BOB)).toBe(3);
    expect((await channels.list()).find((channel) => channel.partnerPubkey === BOB)?.active).toBe(true);
  });

  it('leaves a partner that is not ready to dial back once it is', async () => {
    const { access, dialsTo } = labWith(1);
    await reconnectChannelPeers(access, 'alice', { timeoutMs: 10_000, redialMs: 50 });
    expect(dialsTo(BOB)).toBe(1);
    expect(dialsTo(CAROL)).toBe(0);
  });

  it('gives up after its time-out, the node then reported as it is', async () => {
    const { access, dialsTo } = labWith(Number.POSITIVE_INFINITY);
    await expect(reconnectChannelPeers(access, 'alice', { timeoutMs: 300, redialMs: 50 })).resolves.toBeUndefined();
    expect(dialsTo(BOB)).toBeGreaterThan(1);
  });
});

describe('reconnectRunningNodes', () => {
  it('has each running node dial its running partners after the network proxy restarted, not one cut off from it', async () => {
    const waiting = { alice: 'waiting', bob: 'waiting', carol: 'waiting' };
    const carolCutOff = { links: [], faults: { [pairOf('alice', 'carol')]: { partitioned: true } } };
    const { access, channels, dialsTo } = labWith(1, waiting, carolCutOff);
    await reconnectRunningNodes(access);
    expect(dialsTo(BOB)).toBe(1);
    expect(dialsTo(CAROL)).toBe(0);
    expect((await channels.list()).find((channel) => channel.partnerPubkey === BOB)?.active).toBe(true);
  });
});
