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
