// The control plane's metrics of its labs (control-plane/src/metrics): counted from the labs'
// events, read from the state, the chain journal and the nodes when a scrape asks.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { ChannelSampler } from '../../control-plane/src/metrics/channel-sampler.js';
import { LabMetrics } from '../../control-plane/src/metrics/lab-metrics.js';
import type { Channel } from '../../lib/lightning/client.js';
import { sampleValue } from '../support/prometheus-text.js';

const channel = (partnerPubkey: string, localSat: number, remoteSat: number, active = true) =>
  ({ partnerPubkey, localSat, remoteSat, active }) as Channel;

/** A lab "demo" of two lnd nodes, alice (ready) and bob (`bobStatus`), with a chain at `height`. */
function fakeLab(options: { bobStatus?: string; aliceChannels: () => Promise<Channel[]>; height: number }) {
  const service = (name: string, status: string, restarts = 0) => ({
    name,
    kind: 'lnd',
    status,
    restarts,
    info: { pubkey: `${name}-key` },
  });
  const lab = {
    name: 'demo',
    status: 'degraded',
    spec: {
      nodes: [
        { name: 'alice', kind: 'lnd' },
        { name: 'bob', kind: 'lnd' },
      ],
    },
    services: { alice: service('alice', 'ready', 2), bob: service('bob', options.bobStatus ?? 'ready') },
  } as unknown as LabState;
  let channelReads = 0;
  const session = {
    lab,
    chainJournal: { tip: async () => ({ height: options.height, hash: 'ab' }) },
    node: (name: string) => ({
      lightning: {
        channels: {
          list: async () => {
            channelReads++;
            return name === 'alice' ? options.aliceChannels() : [channel('alice-key', 300, 700)];
          },
        },
      },
    }),
  } as unknown as LabSession;
  return { lab, session, channelReads: () => channelReads };
}

function metricsOf(lab: LabState, session: LabSession, sampler = new ChannelSampler(10_000, 100)) {
  const registry = new Registry();
  const metrics = new LabMetrics(
    registry,
    {
      labs: () => [lab],
      session: () => session,
      jobCounts: async () => new Map([['payments', { waiting: 1, active: 2, completed: 5 }]]),
      activity: () => ({ running: true, inFlight: 3 }),
    },
    sampler,
  );
  return { metrics, scrape: () => registry.metrics() };
}

describe('the control plane metrics of a lab', () => {
  it('counts payments by outcome, their durations, failures by reason, amounts and blocks from events', async () => {
    const { lab, session } = fakeLab({ aliceChannels: async () => [], height: 120 });
    const { metrics, scrape } = metricsOf(lab, session);
    const job = (state: 'completed' | 'failed', ms: number, code?: string): LabEvent => ({
      type: 'job',
      lab: 'demo',
      job: `payments-${ms}`,
      queue: 'payments',
      state,
      ms,
      ...(code ? { code, error: 'no route' } : {}),
    });
    metrics.observe(job('completed', 150));
    metrics.observe(job('completed', 250));
    metrics.observe(job('failed', 3_000, 'PAYMENT_FAILED'));
    metrics.observe(job('failed', 10, undefined));
    metrics.observe({
      type: 'payment',
      lab: 'demo',
      from: 'alice',
      to: 'bob',
      amountSat: 1000,
      feeSat: 1,
      paymentHash: 'h',
    });
    metrics.observe({ type: 'blocks', lab: 'demo', height: 126, mined: 6 });
    metrics.observe({ type: 'job', lab: 'demo', job: 'mining-1', queue: 'mining', state: 'completed', ms: 40 });
    const text = await scrape();
    expect(sampleValue(text, 'reglab_payments_total', { lab: 'demo', outcome: 'succeeded' })).toBe(2);
    expect(sampleValue(text, 'reglab_payments_total', { lab: 'demo', outcome: 'failed' })).toBe(2);
    expect(sampleValue(text, 'reglab_payment_failures_total', { lab: 'demo', reason: 'PAYMENT_FAILED' })).toBe(1);
    expect(sampleValue(text, 'reglab_payment_failures_total', { lab: 'demo', reason: 'UNKNOWN' })).toBe(1);
    expect(sampleValue(text, 'reglab_payment_duration_seconds_sum', { lab: 'demo', outcome: 'succeeded' })).toBe(0.4);
    expect(
      sampleValue(text, 'reglab_payment_duration_seconds_bucket', { lab: 'demo', outcome: 'succeeded', le: '0.25' }),
    ).toBe(2);
    expect(sampleValue(text, 'reglab_payment_amount_sat_total', { lab: 'demo' })).toBe(1000);
    expect(sampleValue(text, 'reglab_payment_fees_sat_total', { lab: 'demo' })).toBe(1);
    expect(sampleValue(text, 'reglab_blocks_mined_total', { lab: 'demo' })).toBe(6);
    expect(sampleValue(text, 'reglab_jobs_total', { lab: 'demo', queue: 'mining', state: 'completed' })).toBe(1);
    expect(sampleValue(text, 'reglab_jobs_total', { lab: 'demo', queue: 'payments', state: 'failed' })).toBe(2);
  });

  it("counts the payment activity's payments by outcome, their durations and failures by code; reads it running", async () => {
    const { lab, session } = fakeLab({ aliceChannels: async () => [], height: 1 });
    const { metrics, scrape } = metricsOf(lab, session);
    const paid = { type: 'payment', lab: 'demo', from: 'alice', to: 'bob', amountSat: 10, feeSat: 0 } as const;
    metrics.observe({ ...paid, paymentHash: 'a', activity: true, ms: 80 });
    metrics.observe({ ...paid, paymentHash: 'b', activity: true, ms: 120 });
    // a payment of the queue is not the activity's
    metrics.observe({ ...paid, paymentHash: 'c' });
    const failed = {
      type: 'payment-failed',
      lab: 'demo',
      from: 'bob',
      to: 'alice',
      amountSat: 5,
      activity: true,
    } as const;
    metrics.observe({ ...failed, code: 'SERVICE_NOT_READY', reason: 'bob is restarting', ms: 1 });
    metrics.observe({ ...failed, code: 'PAYMENT_FAILED', reason: 'no route', ms: 3_000 });
    metrics.observe({ ...failed, code: 'PAYMENT_FAILED', reason: 'no route', ms: 2_000 });
    const text = await scrape();
    expect(sampleValue(text, 'reglab_activity_payments_total', { lab: 'demo', outcome: 'succeeded' })).toBe(2);
    expect(sampleValue(text, 'reglab_activity_payments_total', { lab: 'demo', outcome: 'failed' })).toBe(3);
    expect(sampleValue(text, 'reglab_activity_failures_total', { lab: 'demo', reason: 'PAYMENT_FAILED' })).toBe(2);
    expect(sampleValue(text, 'reglab_activity_failures_total', { lab: 'demo', reason: 'SERVICE_NOT_READY' })).toBe(1);
    expect(
      sampleValue(text, 'reglab_activity_payment_duration_seconds_bucket', {
        lab: 'demo',
        outcome: 'succeeded',
        le: '0.1',
      }),
    ).toBe(1);
    expect(
      sampleValue(text, 'reglab_activity_payment_duration_seconds_sum', { lab: 'demo', outcome: 'failed' }),
    ).toBeCloseTo(5.001, 6);
    expect(sampleValue(text, 'reglab_activity_running', { lab: 'demo' })).toBe(1);
    expect(sampleValue(text, 'reglab_activity_payments_in_flight', { lab: 'demo' })).toBe(3);
  });

  it('reads services, restarts, height, queues and channel balances when scraped', async () => {
    const { lab, session } = fakeLab({
      aliceChannels: async () => [channel('bob-key', 600, 400), channel('bob-key', 50, 50, false), channel('zz', 1, 2)],
      height: 321,
    });
    const text = await metricsOf(lab, session).scrape();
    expect(sampleValue(text, 'reglab_lab_status', { lab: 'demo', status: 'degraded' })).toBe(1);
    expect(sampleValue(text, 'reglab_service_ready', { lab: 'demo', service: 'alice' })).toBe(1);
    expect(sampleValue(text, 'reglab_service_restarts_total', { lab: 'demo', service: 'alice' })).toBe(2);
    expect(sampleValue(text, 'reglab_chain_height', { lab: 'demo' })).toBe(321);
    expect(sampleValue(text, 'reglab_queue_jobs', { queue: 'payments', state: 'active' })).toBe(2);
    // both channels of alice with bob add up; a partner not of the lab goes by its pubkey
    expect(sampleValue(text, 'reglab_channel_local_sat', { lab: 'demo', node: 'alice', partner: 'bob' })).toBe(650);
    expect(sampleValue(text, 'reglab_channel_remote_sat', { lab: 'demo', node: 'alice', partner: 'bob' })).toBe(450);
    expect(sampleValue(text, 'reglab_channels_active', { lab: 'demo', node: 'alice', partner: 'bob' })).toBe(1);
    expect(sampleValue(text, 'reglab_channel_local_sat', { lab: 'demo', node: 'alice', partner: 'zz' })).toBe(1);
    expect(sampleValue(text, 'reglab_channel_local_sat', { lab: 'demo', node: 'bob', partner: 'alice' })).toBe(300);
  });

  it('leaves out a node that is not ready, and one that does not answer in time, without holding the scrape', async () => {
    const { lab, session } = fakeLab({
      bobStatus: 'restarting',
      aliceChannels: () => new Promise<never>(() => undefined),
      height: 5,
    });
    const text = await metricsOf(lab, session).scrape();
    expect(sampleValue(text, 'reglab_node_answered', { lab: 'demo', node: 'alice' })).toBe(0);
    expect(sampleValue(text, 'reglab_node_answered', { lab: 'demo', node: 'bob' })).toBeUndefined();
    expect(
      sampleValue(text, 'reglab_channel_local_sat', { lab: 'demo', node: 'alice', partner: 'bob' }),
    ).toBeUndefined();
    expect(sampleValue(text, 'reglab_service_ready', { lab: 'demo', service: 'bob' })).toBe(0);
  });

  it('asks the nodes once for the scrapes within the sample age', async () => {
    const fake = fakeLab({ aliceChannels: async () => [channel('bob-key', 1, 1)], height: 5 });
    const { scrape } = metricsOf(fake.lab, fake.session);
    await scrape();
    await scrape();
    await scrape();
    expect(fake.channelReads()).toBe(2);
  });
});
