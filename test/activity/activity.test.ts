// Payment activity on a mixed lnd/LDK lab (alice lnd -> bob ldk -> carol lnd), as its users drive
// it: random keysends replayed by a seed, a defined flow, bad requests refused, and an activity
// that keeps going while carol is killed with SIGKILL and restarted, counting the failures the kill
// caused. Its own lab: it kills carol. The node killed is an lnd one: LDK killed in the middle of
// payments may find at restart its ChannelManager older than a ChannelMonitor and force-close the
// channel (rust-lightning#4286, docs/ldk.md), after which no payment with it succeeds again.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../control-plane/src/activity/records.js';
import type { ActivityStatus } from '../../control-plane/src/activity/runner.js';
import { waitFor } from '../../lib/wait.js';
import { reglabOf } from '../support/cli.js';
import { sampleValue } from '../support/prometheus-text.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';

const LAB = 'act';
// each channel pushes 2M sat to its far side, so that every node can send
const YAML = `name: ${LAB}
indexer: { enabled: true }
nodes:
  - { name: alice, kind: lnd, funding_sat: 20000000 }
  - { name: bob, kind: ldk, chain_source: electrum, funding_sat: 20000000 }
  - { name: carol, kind: lnd, funding_sat: 20000000 }
channels:
  - { from: alice, to: bob, capacity_sat: 5000000, push_sat: 2000000 }
  - { from: bob, to: carol, capacity_sat: 5000000, push_sat: 2000000 }
`;

describe('payment activity on a mixed lnd/LDK lab', () => {
  let cp: TestControlPlane;
  const status = async (): Promise<ActivityStatus> => (await cp.call('GET', `/labs/${LAB}/activity`)).body;
  const records = async (): Promise<PaymentRecord[]> =>
    (await cp.call('GET', `/labs/${LAB}/activity/payments`)).body.payments;
  const stopWhenDone = async () => {
    await cp.call('DELETE', `/labs/${LAB}/activity`);
    await waitFor(async () => (await status()).inFlight === 0, {
      timeoutMs: 150_000,
      what: 'the payments in flight to end',
    });
  };
  const reglab = (...args: string[]) => reglabOf(cp.home, '--lab', LAB, ...args);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('refuses a flow naming no Lightning node of the lab, and starts nothing', async () => {
    const refused = await cp.call('POST', `/labs/${LAB}/activity`, {
      flows: [{ from: 'alice', to: 'zed', amount_sat: 10, interval_seconds: 1 }],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: 'INVALID_ACTIVITY',
      message: 'flows.0.to: no node named "zed" (Lightning nodes: alice, bob, carol)',
    });
    const badShape = await cp.call('POST', `/labs/${LAB}/activity`, { random: { seed: -1 } });
    expect(badShape.status).toBe(400);
    expect(badShape.body.error.code).toBeDefined();
    expect(await status()).toMatchObject({ running: false, attempted: 0 });
  });

  it('sends random keysends between lnd and LDK nodes, and replays the same decisions for the same seed', async () => {
    const started = await cp.call('POST', `/labs/${LAB}/activity`, {
      random: { seed: 2026, expected_amount_sat: 2000 },
    });
    expect(started.status).toBe(200);
    expect(started.body.plan.random).toMatchObject({
      seed: 2026,
      nodes: [
        { name: 'alice', capacitySat: 5_000_000 },
        { name: 'bob', capacitySat: 10_000_000 },
        { name: 'carol', capacitySat: 5_000_000 },
      ],
    });
    const again = await cp.call('POST', `/labs/${LAB}/activity`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ACTIVITY_RUNNING');
    await waitFor(async () => (await status()).attempted >= 15, { timeoutMs: 120_000, what: '15 payments' });
    await stopWhenDone();
    const first = await records();
    const succeeded = first.filter((record) => record.outcome === 'succeeded');
    // every node sent and was paid, the LDK node too
    for (const name of ['alice', 'bob', 'carol']) {
      expect(succeeded.some((record) => record.from === name)).toBe(true);
      expect(succeeded.some((record) => record.to === name)).toBe(true);
    }
    // lnd tells the hops: alice -> carol goes over bob
    expect(
      succeeded
        .filter((record) => record.from === 'alice' && record.to === 'carol')
        .every((record) => record.hops === 2),
    ).toBe(true);
    const decided = (list: PaymentRecord[]) =>
      list
        .map(({ seq, from, to, amountSat }) => ({ seq, from, to, amountSat }))
        .sort((a, b) => a.seq - b.seq)
        .slice(0, 12);

    await cp.call('POST', `/labs/${LAB}/activity`, { random: { seed: 2026, expected_amount_sat: 2000 } });
    await waitFor(async () => (await status()).attempted >= 15, { timeoutMs: 120_000, what: '15 payments again' });
    await stopWhenDone();
    expect(decided(await records())).toEqual(decided(first));
  });

  it('runs a defined flow to its count, then stops by itself; the records export as CSV', async () => {
    const started = await cp.call('POST', `/labs/${LAB}/activity`, {
      flows: [{ from: 'carol', to: 'alice', amount_sat: 1500, interval_seconds: 0.2, count: 5 }],
    });
    expect(started.status).toBe(200);
    await waitFor(async () => !(await status()).running && (await status()).inFlight === 0, {
      timeoutMs: 60_000,
      what: 'the flow to end',
    });
    expect(await status()).toMatchObject({ stopReason: 'every flow sent its payments', attempted: 5, succeeded: 5 });
    const csv = await cp.call('GET', `/labs/${LAB}/activity/payments?format=csv`);
    const lines = (csv.body as string).trim().split('\n');
    expect(lines[0]).toBe(
      'time,source,seq,from,to,amount_sat,fee_msat,hops,latency_ms,outcome,code,reason,payment_hash',
    );
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',').slice(1, 6).join(','))
        .sort(),
    ).toEqual([1, 2, 3, 4, 5].map((seq) => `flow:0,${seq},carol,alice,1500`).sort());
    expect(lines.slice(1).every((line) => line.split(',')[9] === 'succeeded')).toBe(true);
  });

  it('keeps going while carol is killed and restarted, counting the failures the kill caused', async () => {
    const metricsBefore = (await cp.call('GET', '/metrics')).body as string;
    const started = await reglab('activity', 'start', '--seed', '11', '--expected-amount', '2000');
    expect(started.code, started.stderr).toBe(0);
    expect(started.stdout).toMatch(/activity of lab act running since .* \(random, seed 11, /);
    await waitFor(async () => (await records()).filter((record) => record.outcome === 'succeeded').length >= 5, {
      timeoutMs: 120_000,
      what: '5 payments to succeed before the kill',
    });
    const killedAt = new Date().toISOString();
    expect((await reglab('kill', 'carol')).code).toBe(0);
    await waitFor(async () => (await status()).failed >= 3, {
      timeoutMs: 60_000,
      what: 'payments to fail while carol is down',
    });
    let backAt = '';
    await waitFor(
      async () => {
        const carol = (await cp.call('GET', `/labs/${LAB}`)).body.services.find(
          (service: { name: string }) => service.name === 'carol',
        );
        if (carol.status !== 'ready') return false;
        backAt = new Date().toISOString();
        return true;
      },
      { timeoutMs: 120_000, what: 'carol to be restarted' },
    );
    await waitFor(
      async () =>
        (await records()).some(
          (record) =>
            record.time > backAt && record.outcome === 'succeeded' && [record.from, record.to].includes('carol'),
        ),
      { timeoutMs: 120_000, what: 'payments with carol to succeed again' },
    );
    const during = await reglab('--json', 'activity', 'status');
    const running = JSON.parse(during.stdout) as ActivityStatus;
    expect(running.running).toBe(true);
    const outage = (await records()).filter(
      (record) => record.time >= killedAt && record.time <= backAt && record.outcome === 'failed',
    );
    expect(outage.length).toBeGreaterThanOrEqual(3);
    expect(outage.every((record) => typeof record.reason === 'string' && record.reason.length > 0)).toBe(true);
    expect(Object.values(running.failuresByReason).reduce((sum, count) => sum + count, 0)).toBe(running.failed);
    expect((await reglab('activity', 'status')).stdout).toContain('failures by reason:');

    expect((await reglab('activity', 'stop')).code).toBe(0);
    await waitFor(async () => (await status()).inFlight === 0, {
      timeoutMs: 150_000,
      what: 'the payments in flight to end',
    });
    // /metrics counted each payment of this run as it ended
    const stopped = await status();
    const metricsAfter = (await cp.call('GET', '/metrics')).body as string;
    const counted = (name: string, labels: Record<string, string>) =>
      (sampleValue(metricsAfter, name, { lab: LAB, ...labels }) ?? 0) -
      (sampleValue(metricsBefore, name, { lab: LAB, ...labels }) ?? 0);
    expect(counted('reglab_activity_payments_total', { outcome: 'succeeded' })).toBe(stopped.succeeded);
    expect(counted('reglab_activity_payments_total', { outcome: 'failed' })).toBe(stopped.failed);
    expect(counted('reglab_activity_failures_total', { reason: 'SERVICE_NOT_READY' })).toBe(
      (await records()).filter((record) => record.code === 'SERVICE_NOT_READY').length,
    );
    expect(sampleValue(metricsAfter, 'reglab_activity_running', { lab: LAB })).toBe(0);
    const folder = mkdtempSync(join(tmpdir(), 'reglab-activity-'));
    const file = join(folder, 'payments.csv');
    const exported = await reglab('activity', 'export', '--csv', file);
    const csv = existsSync(file) ? readFileSync(file, 'utf8') : '';
    rmSync(folder, { recursive: true, force: true });
    expect(exported.code, exported.stderr).toBe(0);
    const rows = csv.trim().split('\n').slice(1);
    expect(exported.stdout).toBe(`${rows.length} payments written to ${file}\n`);
    expect(rows.some((row) => row.includes(',failed,'))).toBe(true);
    expect(rows.some((row) => row.includes(',succeeded,'))).toBe(true);
    // its waits, one after another, each with its own deadline: the test's limit is their sum
  }, 600_000);
});
