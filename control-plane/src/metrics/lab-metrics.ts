// The control plane's metrics of its labs, every series labelled with the lab's name. What happens
// (payments, failures, jobs, blocks) is counted from the labs' events as they go out; what is (the
// services' status and restarts, the chain's height, the queues, the channels) is read when a
// scrape asks, from what the control plane holds already: its state, the lab's chain journal, the
// queues when they are open, and the channels from ChannelSampler.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LabEvent } from '../lab/events.js';
import type { LabSession } from '../lab/session.js';
import type { LabState } from '../lab/state.js';
import type { ChannelSampler, ChannelSide } from './channel-sampler.js';

/** What the metrics read at a scrape. */
export interface MetricsSources {
  labs(): LabState[];
  /** The session of a lab that is up (ready or degraded); undefined otherwise. */
  session(lab: string): LabSession | undefined;
  /** Jobs by queue and state while the queues are open; undefined while they are closed. */
  jobCounts(): Promise<Map<string, Record<string, number>> | undefined>;
  /** The payment activity of a lab that is up; undefined otherwise. */
  activity(lab: string): { running: boolean; inFlight: number } | undefined;
}

/**
 * Payment durations in seconds, from the request to the final answer: a lab payment takes tens of
 * milliseconds; one retried, or waiting for a node, seconds to a minute.
 */
const PAYMENT_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];

/** The failure's code, or this when it has none. */
const NO_CODE = 'UNKNOWN';

export class LabMetrics {
  private readonly jobs: Counter;
  private readonly payments: Counter;
  private readonly paymentDurations: Histogram;
  private readonly paymentFailures: Counter;
  private readonly paidSat: Counter;
  private readonly feesSat: Counter;
  private readonly blocksMined: Counter;
  private readonly activityPayments: Counter;
  private readonly activityDurations: Histogram;
  private readonly activityFailures: Counter;

  constructor(
    registry: Registry,
    private readonly sources: MetricsSources,
    private readonly sampler: ChannelSampler,
  ) {
    const registers = [registry];
    this.jobs = new Counter({
      name: 'reglab_jobs_total',
      help: 'Jobs that ended, by lab, queue and state (completed, failed); a failed attempt tried again is not counted',
      labelNames: ['lab', 'queue', 'state'],
      registers,
    });
    this.payments = new Counter({
      name: 'reglab_payments_total',
      help: "Payments the lab's queue made (pay, keysend, invoices), by lab and outcome (succeeded, failed)",
      labelNames: ['lab', 'outcome'],
      registers,
    });
    this.paymentDurations = new Histogram({
      name: 'reglab_payment_duration_seconds',
      help: 'How long payments took, from the request to the final answer (retries included), by lab and outcome',
      labelNames: ['lab', 'outcome'],
      buckets: PAYMENT_BUCKETS,
      registers,
    });
    this.paymentFailures = new Counter({
      name: 'reglab_payment_failures_total',
      help: `Failed payments by lab and reason: the failure's code (PAYMENT_FAILED, SERVICE_NOT_READY, ...; ${NO_CODE} when it has none)`,
      labelNames: ['lab', 'reason'],
      registers,
    });
    this.paidSat = new Counter({
      name: 'reglab_payment_amount_sat_total',
      help: 'Satoshis paid by the payments that succeeded, by lab',
      labelNames: ['lab'],
      registers,
    });
    this.feesSat = new Counter({
      name: 'reglab_payment_fees_sat_total',
      help: 'Routing fees in satoshis of the payments that succeeded, by lab',
      labelNames: ['lab'],
      registers,
    });
    this.blocksMined = new Counter({
      name: 'reglab_blocks_mined_total',
      help: 'Blocks the lab mined (jobs, auto-mining, faucet claims, reorgs), by lab',
      labelNames: ['lab'],
      registers,
    });
    this.activityPayments = new Counter({
      name: 'reglab_activity_payments_total',
      help: "Payments of the lab's payment activity (reglab activity) that ended, by lab and outcome (succeeded, failed)",
      labelNames: ['lab', 'outcome'],
      registers,
    });
    this.activityDurations = new Histogram({
      name: 'reglab_activity_payment_duration_seconds',
      help: "How long the payment activity's payments took, from the keysend to the node's final answer, by lab and outcome",
      labelNames: ['lab', 'outcome'],
      buckets: PAYMENT_BUCKETS,
      registers,
    });
    this.activityFailures = new Counter({
      name: 'reglab_activity_failures_total',
      help: "Failed payments of the payment activity by lab and reason: the failure's code (PAYMENT_FAILED: the node gave it up; SERVICE_NOT_READY, NODE_ERROR: the payer could not be asked)",
      labelNames: ['lab', 'reason'],
      registers,
    });
    this.registerReadAtScrape(registers);
  }

  /** Counts what an event tells. */
  observe(event: LabEvent): void {
    const lab = event.lab;
    switch (event.type) {
      case 'job': {
        this.jobs.inc({ lab, queue: event.queue, state: event.state });
        if (event.queue !== 'payments') return;
        const outcome = event.state === 'completed' ? 'succeeded' : 'failed';
        this.payments.inc({ lab, outcome });
        this.paymentDurations.observe({ lab, outcome }, event.ms / 1000);
        if (outcome === 'failed') this.paymentFailures.inc({ lab, reason: event.code ?? NO_CODE });
        return;
      }
      case 'payment':
        this.paidSat.inc({ lab }, event.amountSat);
        this.feesSat.inc({ lab }, event.feeSat);
        if (event.activity) this.activityEnded(lab, 'succeeded', event.ms);
        return;
      case 'payment-failed':
        this.activityEnded(lab, 'failed', event.ms);
        this.activityFailures.inc({ lab, reason: event.code });
        return;
      case 'blocks':
        this.blocksMined.inc({ lab }, event.mined);
        return;
    }
  }

  private activityEnded(lab: string, outcome: 'succeeded' | 'failed', ms: number | undefined): void {
    this.activityPayments.inc({ lab, outcome });
    if (ms !== undefined) this.activityDurations.observe({ lab, outcome }, ms / 1000);
  }

  private runningSessions(): LabSession[] {
    return this.sources
      .labs()
      .map((lab) => this.sources.session(lab.name))
      .filter((session) => session !== undefined);
  }

  private registerReadAtScrape(registers: Registry[]): void {
    const { sources, sampler } = this;
    const runningSessions = () => this.runningSessions();
    new Gauge({
      name: 'reglab_lab_status',
      help: "1 for the lab's status (starting, ready, degraded, failed, stopping), by lab",
      labelNames: ['lab', 'status'],
      registers,
      collect() {
        this.reset();
        for (const lab of sources.labs()) this.set({ lab: lab.name, status: lab.status }, 1);
      },
    });
    new Gauge({
      name: 'reglab_service_ready',
      help: 'Whether each service of a lab is ready (1) or not (0: starting, restarting, unhealthy, failed, stopped)',
      labelNames: ['lab', 'service', 'kind', 'status'],
      registers,
      collect() {
        this.reset();
        for (const lab of sources.labs())
          for (const service of Object.values(lab.services))
            this.set(
              { lab: lab.name, service: service.name, kind: service.kind, status: service.status },
              service.status === 'ready' ? 1 : 0,
            );
      },
    });
    new Counter({
      name: 'reglab_service_restarts_total',
      help: 'Restarts the supervisor made of each service since the lab came up, by lab and service',
      labelNames: ['lab', 'service'],
      registers,
      collect() {
        this.reset();
        for (const lab of sources.labs())
          for (const service of Object.values(lab.services))
            this.inc({ lab: lab.name, service: service.name }, service.restarts);
      },
    });
    const activityGauge = (
      name: string,
      help: string,
      value: (activity: { running: boolean; inFlight: number }) => number,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: ['lab'],
        registers,
        collect() {
          this.reset();
          for (const lab of sources.labs()) {
            const activity = sources.activity(lab.name);
            if (activity) this.set({ lab: lab.name }, value(activity));
          }
        },
      });
    activityGauge('reglab_activity_running', "Whether the lab's payment activity runs (1) or not (0)", (activity) =>
      activity.running ? 1 : 0,
    );
    activityGauge(
      'reglab_activity_payments_in_flight',
      "The payment activity's payments under way",
      (activity) => activity.inFlight,
    );
    new Gauge({
      name: 'reglab_chain_height',
      help: "The height of the lab's chain (its chain journal, which follows the chain node's best chain)",
      labelNames: ['lab'],
      registers,
      async collect() {
        this.reset();
        const tips = await Promise.all(
          runningSessions().map(async (session) => ({
            lab: session.lab.name,
            tip: await session.chainJournal.tip().catch(() => undefined),
          })),
        );
        for (const { lab, tip } of tips) if (tip) this.set({ lab }, tip.height);
      },
    });
    new Gauge({
      name: 'reglab_queue_jobs',
      help: "Jobs of the control plane's queues (all labs) by queue and state; none before a queue first opens",
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const [queue, states] of (await sources.jobCounts()) ?? [])
          for (const [state, count] of Object.entries(states)) this.set({ queue, state }, count);
      },
    });
    const channelGauge = (name: string, help: string, value: (side: ChannelSide) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['lab', 'node', 'partner'],
        registers,
        async collect() {
          this.reset();
          for (const { lab, node, side } of await channelSides(runningSessions(), sampler))
            this.inc({ lab, node, partner: side.partner }, value(side));
        },
      });
    channelGauge(
      'reglab_channel_local_sat',
      "A node's side of its channels with a partner, in satoshis (sampled at most every 10 s)",
      (side) => side.localSat,
    );
    channelGauge(
      'reglab_channel_remote_sat',
      "The partner's side of a node's channels with it, in satoshis (sampled at most every 10 s)",
      (side) => side.remoteSat,
    );
    channelGauge('reglab_channels_active', "A node's active channels with a partner", (side) => (side.active ? 1 : 0));
    new Gauge({
      name: 'reglab_node_answered',
      help: 'Whether a ready Lightning node listed its channels within 2 s at the last sample (1) or not (0)',
      labelNames: ['lab', 'node'],
      registers,
      async collect() {
        this.reset();
        for (const session of runningSessions())
          for (const sample of await sampler.channels(session))
            this.set({ lab: session.lab.name, node: sample.node }, sample.answered ? 1 : 0);
      },
    });
  }
}

/** Every channel side of every answering node of the running labs. */
async function channelSides(sessions: LabSession[], sampler: ChannelSampler) {
  const samples = await Promise.all(
    sessions.map(async (session) => ({ lab: session.lab.name, nodes: await sampler.channels(session) })),
  );
  return samples.flatMap(({ lab, nodes }) =>
    nodes.flatMap(({ node, channels }) => channels.map((side) => ({ lab, node, side }))),
  );
}
