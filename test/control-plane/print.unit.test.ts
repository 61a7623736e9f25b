// What `reglab up` prints for a lab's events, line by line, what `reglab status` says of parts that do not
// answer, and what `reglab down` says.
import { describe, expect, it } from 'vitest';
import { formatDown, formatEvent, formatLab } from '../../control-plane/src/cli/print.js';

describe('formatEvent', () => {
  it('prints each line of an image build under the bring-up, indented', () => {
    expect(
      formatEvent({ type: 'image', lab: 'dev', line: 'building localhost/reglab-services:local (pin 0123456789ab)' }),
    ).toBe('  · building localhost/reglab-services:local (pin 0123456789ab)');
    expect(
      formatEvent({ type: 'image', lab: 'dev', line: 'tsc reported problems (exit 2):\nsrc/a.ts(1,1): error TS1005' }),
    ).toBe('  · tsc reported problems (exit 2):\n  · src/a.ts(1,1): error TS1005');
  });

  it('prints a phase with its time and a service ready with its main endpoint', () => {
    expect(formatEvent({ type: 'phase', lab: 'dev', phase: 'prepare', ms: 25_480 })).toBe('  — prepare done in 25.5s');
    expect(
      formatEvent({
        type: 'service',
        lab: 'dev',
        service: 'faucet',
        status: 'ready',
        info: { url: 'http://127.0.0.1:8080/' },
      }),
    ).toBe('  ✓ faucet ready  http://127.0.0.1:8080/');
  });
});

describe('a lab that does not all answer', () => {
  it('prints a service waiting for its dependency with why', () => {
    expect(
      formatEvent({
        type: 'service',
        lab: 'dev',
        service: 'alice',
        status: 'waiting',
        message: 'waiting for chain (btcd), which is stopped',
      }),
    ).toBe('  … alice waiting for chain (btcd), which is stopped');
  });

  it('says the chain, the lab wallet and a node are not answering rather than printing no figure', () => {
    const text = formatLab({
      name: 'dev',
      status: 'ready',
      runtime: 'process',
      dir: '/tmp/dev',
      chain: { kind: 'btcd', error: 'not answering (no answer within 0.75 s)' },
      labWallet: { address: 'bcrt1qlab', error: 'not answering (no answer within 0.75 s)' },
      services: [],
      nodes: [{ name: 'bob', status: 'ready', error: 'not answering (no answer within 0.75 s)' }],
      phases: [],
    });
    expect(text).toContain('  chain: btcd not answering (no answer within 0.75 s)');
    expect(text).toContain('  lab wallet: not answering (no answer within 0.75 s) (bcrt1qlab)');
    expect(text).toContain('    bob: not answering (no answer within 0.75 s)');
  });
});

describe('formatDown', () => {
  it('says the lab is down, and names the containers of others it took off the lab network', () => {
    expect(formatDown('dev', {})).toBe('lab dev is down');
    expect(formatDown('dev', { detached: ['test-client'] })).toBe(
      'lab dev is down; test-client, a container not of the lab, was disconnected from its network and left in place',
    );
    expect(formatDown('dev', { detached: ['a', 'b'] })).toBe(
      'lab dev is down; a, b, containers not of the lab, were disconnected from its network and left in place',
    );
  });

  it('says a lab whose engine is gone is forgotten, and what stays in the engine', () => {
    expect(formatDown('dev', { leftInEngine: 'its containers stay there' })).toBe(
      'lab dev is forgotten: its container engine does not answer; its containers stay there',
    );
  });
});

describe('formatLab', () => {
  const lab = (
    pendingCloses: { fundingTxid: string; pendingSat: number; blocksUntilSweep?: number; sweepOverdue?: true }[],
  ) => ({
    name: 'dev',
    status: 'ready',
    runtime: 'process',
    dir: '/tmp/dev',
    services: [],
    phases: [],
    nodes: [
      { name: 'carol', status: 'ready', chainBalanceSat: 1_000, channelBalanceSat: 0, channels: [], pendingCloses },
    ],
  });

  it("shows a node's pending closes: timelocked for N more blocks, matured and being swept, or overdue, never a negative wait", () => {
    const text = formatLab(
      lab([
        { fundingTxid: 'ab'.repeat(32), pendingSat: 499_000, blocksUntilSweep: 143 },
        { fundingTxid: 'cd'.repeat(32), pendingSat: 1_000, blocksUntilSweep: 1 },
        { fundingTxid: 'ef'.repeat(32), pendingSat: 250_000, blocksUntilSweep: -96 },
        { fundingTxid: '01'.repeat(32), pendingSat: 7_000 },
        { fundingTxid: '23'.repeat(32), pendingSat: 90_000, blocksUntilSweep: 0, sweepOverdue: true },
      ]),
    );
    expect(text.split('\n').filter((line) => line.includes('closing'))).toEqual([
      '      ⇣ closing (funded by abababababab…): 499000 sat, spendable in 143 blocks',
      '      ⇣ closing (funded by cdcdcdcdcdcd…): 1000 sat, spendable in 1 block',
      '      ⇣ closing (funded by efefefefefef…): 250000 sat, sweeping',
      '      ⇣ closing (funded by 010101010101…): 7000 sat',
      '      ⇣ closing (funded by 232323232323…): 90000 sat, matured but not swept: `reglab restart carol` lets lnd sweep it (lnd issue #10938)',
    ]);
  });
});

describe("the dashboard's pending close", () => {
  it('says spendable in N blocks while timelocked, sweeping once matured or overdue, never a negative wait', async () => {
    // the dashboard's browser module: plain JavaScript without DOM calls
    const { closingText } = (await import('../../control-plane/src/dashboard/ui/format.js' as string)) as {
      closingText(close: { pendingSat: number; blocksUntilSweep?: number; sweepOverdue?: true }): string;
    };
    expect(closingText({ pendingSat: 499_000, blocksUntilSweep: 143 })).toBe(
      'closing: 499,000 sat, spendable in 143 blocks',
    );
    expect(closingText({ pendingSat: 250_000, blocksUntilSweep: -96 })).toBe('closing: 250,000 sat, sweeping');
    expect(closingText({ pendingSat: 250_000, blocksUntilSweep: 0 })).toBe('closing: 250,000 sat, sweeping');
    expect(closingText({ pendingSat: 250_000, blocksUntilSweep: 0, sweepOverdue: true })).toBe(
      'closing: 250,000 sat, matured but not swept: restart the node to sweep it',
    );
    expect(closingText({ pendingSat: 7_000 })).toBe('closing: 7,000 sat');
  });
});
