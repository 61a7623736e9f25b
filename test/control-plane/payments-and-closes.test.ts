// What `reglab pay` and `reglab channel close` tell a person when the lab stands in the way: a
// disconnected or frozen peer, a node with several channels to one partner. Each refusal names
// what to do, comes in seconds, is not retried, and invalid input exits 2.
// Its own lab: it disconnects and freezes nodes, and opens and closes channels.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { type CliResult, reglabOf } from '../support/cli.js';
import {
  bringUpLab,
  pidOf as servicePid,
  startTestControlPlane,
  type TestControlPlane,
} from '../support/control-plane.js';

const LAB = 'paycli';
const YAML = `name: ${LAB}
indexer:
  enabled: false
nodes:
  - name: alice
  - name: bob
  - name: carol
channels:
  - from: alice
    to: bob
    capacity_sat: 500000
  - from: bob
    to: carol
    capacity_sat: 500000
`;

interface Channel {
  id: string;
  partner: string;
  active: boolean;
}

describe('payments and closes the lab stands in the way of', () => {
  let cp: TestControlPlane;
  const reglab = (...args: string[]): Promise<CliResult> => reglabOf(cp.home, '--lab', LAB, ...args);
  const channels = async (node: string): Promise<Channel[]> =>
    (await cp.call('GET', `/labs/${LAB}/nodes/${node}`)).body.channels;
  const allActive = async (...nodes: string[]) => {
    for (const node of nodes)
      await waitFor(async () => (await channels(node)).every((channel) => channel.active), {
        timeoutMs: 60_000,
        what: `${node}'s channels to be active`,
      });
  };
  const pidOf = (name: string) => servicePid(cp, LAB, name);
  /** `reglab --json pay alice carol`: the job as the CLI printed it. */
  const payAliceCarol = async () => {
    const result = await reglab('--json', 'pay', 'alice', 'carol', '1000');
    return { code: result.code, job: JSON.parse(result.stdout) as { state: string; error?: string; attempts: number } };
  };

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('channel close: with several channels to one partner, lists only those, closes the one --channel-id names, and exits 2 on invalid input', {
    timeout: 300_000,
  }, async () => {
    for (const [to, capacity] of [
      ['bob', 300_000],
      ['carol', 200_000],
    ] as const)
      expect((await reglab('channel', 'open', 'alice', to, String(capacity))).code).toBe(0);
    const withBob = (await channels('alice')).filter((channel) => channel.partner === 'bob').map(({ id }) => id);
    const withCarol = (await channels('alice')).find((channel) => channel.partner === 'carol')!.id;
    expect(withBob).toHaveLength(2);

    const ambiguous = await reglab('channel', 'close', 'alice', 'bob');
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('alice has 2 channels with bob');
    expect(ambiguous.stderr).toContain('--channel-id');
    for (const id of withBob) expect(ambiguous.stderr).toContain(id);
    expect(ambiguous.stderr).not.toContain(withCarol);

    const unnamed = await reglab('channel', 'close', 'alice');
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('--channel-id');
    const notWithBob = await reglab('channel', 'close', 'alice', 'bob', '--channel-id', withCarol);
    expect(notWithBob.code).toBe(2);
    expect(notWithBob.stderr).toContain(`alice has no channel ${withCarol} with bob`);

    const closed = await reglab('channel', 'close', 'alice', 'bob', '--channel-id', withBob[1]!);
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stdout).toContain(`channel ${withBob[1]} closing in `);
    expect((await reglab('channel', 'close', 'alice', 'carol')).code).toBe(0);
    await waitFor(async () => (await channels('alice')).map(({ id }) => id).join() === withBob[0], {
      timeoutMs: 30_000,
      what: "alice's closed channels to be gone",
    });
  });

  it('fails a payment over a disconnected peer at once, naming the inactive channel and why, and does not retry it', async () => {
    expect((await reglab('disconnect', 'alice', 'bob')).code).toBe(0);
    const refused = await payAliceCarol();
    expect(refused.code).toBe(1);
    expect(refused.job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(refused.job.error).toContain(
      "alice's channel to bob is inactive: bob is not connected (`reglab connect alice bob`)",
    );

    expect((await reglab('connect', 'alice', 'bob')).code).toBe(0);
    await allActive('alice', 'bob');
    const again = (await payAliceCarol()).job;
    expect(again.state, again.error).toBe('completed');
  });

  it('fails a payment whose route has a disconnected hop with the lnd reason and the inactive channel, once', async () => {
    expect((await reglab('disconnect', 'bob', 'carol')).code).toBe(0);
    const refused = await payAliceCarol();
    expect(refused.code).toBe(1);
    expect(refused.job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(refused.job.error).toContain('alice could not pay');
    expect(refused.job.error).toMatch(/channel to (carol|bob) is inactive: (carol|bob) is not connected/);

    expect((await reglab('connect', 'bob', 'carol')).code).toBe(0);
    await allActive('bob', 'carol');
    const again = (await payAliceCarol()).job;
    expect(again.state, again.error).toBe('completed');
  });

  it("refuses in seconds a payment started while the payer's peer is frozen, saying it does not answer", async () => {
    process.kill(pidOf('bob'), 'SIGSTOP');
    let refused: Awaited<ReturnType<typeof payAliceCarol>>;
    try {
      refused = await payAliceCarol();
    } finally {
      process.kill(pidOf('bob'), 'SIGCONT');
    }
    expect(refused.code).toBe(1);
    expect(refused.job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(refused.job.error).toContain('bob does not answer');
    expect(refused.job.error).toContain('nothing was sent');
    await allActive('alice', 'bob');
    const again = (await payAliceCarol()).job;
    expect(again.state, again.error).toBe('completed');
  });

  it('reports a payment held by a frozen node further on as in flight after the payment timeout, and it ends once that node answers', async () => {
    const invoice = (await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices`, { amount_msat: 2_000_000 })).body;
    process.kill(pidOf('carol'), 'SIGSTOP');
    let paid: CliResult;
    try {
      paid = await reglab('--json', 'pay', 'alice', '--invoice', invoice.payment_request);
    } finally {
      process.kill(pidOf('carol'), 'SIGCONT');
    }
    const job = JSON.parse(paid.stdout) as { state: string; error?: string; attempts: number };
    expect(paid.code).toBe(1);
    expect(job).toMatchObject({ state: 'failed', attempts: 1 });
    expect(job.error).toContain(`payment ${invoice.payment_hash} is still in flight`);
    expect(job.error).toContain('carol does not answer');
    await waitFor(
      async () =>
        (await cp.call('GET', `/labs/${LAB}/nodes/carol/invoices/${invoice.payment_hash}`)).body.state === 'settled',
      { timeoutMs: 60_000, what: 'the held payment to settle once carol answers again' },
    );
  });
});
