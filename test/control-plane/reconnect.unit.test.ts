// A restarted Lightning node bringing its channels with ready lab nodes back (nodes/reconnect.ts).
import { describe, expect, it } from 'vitest';
import { pairOf } from '../../control-plane/src/network/model.js';
import { reconnectChannelPeers, reconnectRunningNodes } from '../../control-plane/src/nodes/reconnect.js';

const ALICE = '02'.padEnd(66, 'a');
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
  dialRefusal?: string,
) {
  const dials: string[] = [];
  /** What bob was asked to do with alice: drop her connection, dial her. */
  const bobAsked: string[] = [];
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
      if (dialRefusal) throw new Error(dialRefusal);
    },
  };
  const alice = { kind: 'lnd', lightning: { channels } };
  const bob = {
    kind: 'lnd',
    lightning: {
      channels: {
        disconnectPeer: async (pubkey: string) => {
          bobAsked.push(`disconnect ${pubkey === ALICE ? 'alice' : pubkey}`);
        },
        connectPeer: async (pubkey: string, address: string) => {
          bobAsked.push(`dial ${pubkey === ALICE ? 'alice' : pubkey} at ${address}`);
        },
      },
    },
  };
  const service = (name: string, status: string, pubkey: string) => ({ name, status, info: { pubkey } });
  const access = {
    lab: {
      services: {
        alice: service('alice', statuses.alice, ALICE),
        bob: service('bob', statuses.bob, BOB),
        carol: service('carol', statuses.carol, CAROL),
      },
      spec: { nodes: [{ name: 'alice' }] },
      network,
    },
    node: (name: string) => (name === 'bob' ? bob : alice),
    placementFor: () => ({ reach: (partner: string) => `${partner}:9735` }),
  } as unknown as Parameters<typeof reconnectChannelPeers>[0];
  return { access, channels, dialsTo, bobAsked };
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

  it('answers nothing to report when the channels are active again', async () => {
    const { access } = labWith(1);
    await expect(reconnectChannelPeers(access, 'alice', { timeoutMs: 10_000, redialMs: 50 })).resolves.toBeUndefined();
  });

  it('has the partner drop its connection and dial back from halfway through, then gives up saying what is still inactive and why', async () => {
    const { access, dialsTo, bobAsked } = labWith(
      Number.POSITIVE_INFINITY,
      undefined,
      undefined,
      'dial tcp: connection refused',
    );
    const found = await reconnectChannelPeers(access, 'alice', { timeoutMs: 600, redialMs: 50 });
    expect(dialsTo(BOB)).toBeGreaterThan(1);
    expect(bobAsked).toEqual(['disconnect alice', 'dial alice at alice:9735']);
    expect(found).toContain('channels still inactive 1 s after the start: with bob (dial tcp: connection refused)');
    expect(found).toContain('`reglab connect alice bob`');
    expect(found).not.toContain('carol');
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
