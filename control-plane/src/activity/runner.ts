// The activity of one lab: random payments and defined flows sent from the control plane itself (a
// queue job per payment would cost a Redis round trip and a job record each, for nothing a
// payment needs), bounded by the slots in flight, each payment recorded. Its status is read from
// memory: it never waits on a node.
import { setTimeout as pause } from 'node:timers/promises';
import { conflict, invalid } from '../../../lib/errors.js';
import type { LabEvent } from '../lab/events.js';
import { nodePubkey, requireReady } from '../lab/operations.js';
import type { LabSession } from '../lab/session.js';
import { isLightningKind } from '../nodes/registry.js';
import { keysendRecord, type KeysendOrder } from './keysend.js';
import { planProblems, type ActivityPlan } from './plan.js';
import type { FlowSpec } from './request.js';
import { RandomActivity, type ActivityNode, type PaymentDecision } from './random-activity.js';
import { PaymentRecords, type ActivityFigures, type PaymentRecord } from './records.js';
import { Slots } from './slots.js';

export interface ActivityStatus extends ActivityFigures {
  lab: string;
  running: boolean;
  startedAt?: string;
  stoppedAt?: string;
  /** Why it stopped: asked to, its duration reached, or the lab went down. */
  stopReason?: string;
  inFlight: number;
  plan?: PlanView;
}

export interface PlanView {
  random?: {
    seed: number;
    expectedAmountSat: number;
    capacityMultiplier: number;
    /** Payments a second asked of the lab, all nodes together. */
    ratePerSecond: number;
    nodes: ActivityNode[];
  };
  flows: FlowSpec[];
  maxInFlight: number;
  durationSeconds?: number;
}

/** How often the figures go out as an `activity` event while it runs. */
const FIGURES_EVENT_MS = 1_000;

/** One run of an activity, from its start to the end of its last payment. */
class ActivityRun {
  readonly records = new PaymentRecords();
  readonly startedAt = new Date().toISOString();
  stoppedAt?: string;
  stopReason?: string;
  private readonly stopping = new AbortController();
  private readonly slots: Slots;
  private readonly ticker: NodeJS.Timeout;
  private readonly deadline?: NodeJS.Timeout;

  constructor(
    private readonly session: LabSession,
    readonly plan: PlanView,
    random: RandomActivity | undefined,
    private readonly pubkeys: Map<string, string>,
    private readonly emit: (event: LabEvent) => void,
  ) {
    this.slots = new Slots(plan.maxInFlight);
    const parts = [
      ...(random ? [this.loop('random', 0, () => random.next())] : []),
      ...plan.flows.map((flow, index) =>
        this.loop(`flow:${index}`, Math.round((flow.start_seconds ?? 0) * 1000), flowDecisions(flow)),
      ),
    ];
    // flows that all have a count end by themselves
    void Promise.all(parts).then(() => this.stop('every flow sent its payments'));
    this.ticker = setInterval(() => this.emitFigures(), FIGURES_EVENT_MS);
    if (plan.durationSeconds !== undefined)
      this.deadline = setTimeout(() => this.stop('its duration ended'), plan.durationSeconds * 1000);
  }

  get running(): boolean {
    return !this.stopping.signal.aborted;
  }

  stop(reason: string): void {
    if (!this.running) return;
    this.stoppedAt = new Date().toISOString();
    this.stopReason = reason;
    this.stopping.abort(new Error(reason));
    clearInterval(this.ticker);
    clearTimeout(this.deadline);
    this.emitFigures();
  }

  status(): ActivityStatus {
    return {
      lab: this.session.lab.name,
      running: this.running,
      startedAt: this.startedAt,
      ...(this.stoppedAt ? { stoppedAt: this.stoppedAt, stopReason: this.stopReason } : {}),
      inFlight: this.slots.inUse,
      ...this.records.figures(),
      plan: this.plan,
    };
  }

  /**
   * Sends the decisions of one part of the activity, after `startDelayMs`, until it has none left
   * or the run stops. The random part's decisions never depend on how payments end, so a seed
   * replays them.
   */
  private async loop(source: string, startDelayMs: number, decide: () => PaymentDecision | undefined): Promise<void> {
    const signal = this.stopping.signal;
    try {
      await pause(startDelayMs, undefined, { signal });
      for (let decision = decide(); decision; decision = decide()) {
        await pause(decision.delayMs, undefined, { signal });
        await this.slots.take(signal);
        void this.send({ ...decision, source, toPubkey: this.pubkeys.get(decision.to)! });
      }
    } catch {
      // stopped
    }
  }

  private async send(order: KeysendOrder): Promise<void> {
    const record = await keysendRecord(this.session, order);
    this.slots.give();
    this.records.add(record);
    // once stopped, no tick tells the payments that end after it
    if (!this.running) this.emitFigures();
    const lab = this.session.lab.name;
    const { from, to, amountSat, latencyMs: ms } = record;
    if (record.outcome === 'succeeded')
      this.emit({
        type: 'payment',
        lab,
        from,
        to,
        amountSat,
        feeSat: Number(BigInt(record.feeMsat) / 1000n),
        paymentHash: record.paymentHash!,
        activity: true,
        ms,
      });
    else if (record.outcome === 'failed')
      this.emit({
        type: 'payment-failed',
        lab,
        from,
        to,
        amountSat,
        code: record.code ?? 'NODE_ERROR',
        reason: record.reason ?? 'no reason given',
        ms,
        activity: true,
      });
  }

  private emitFigures(): void {
    const { plan: _plan, ...figures } = this.status();
    this.emit({ type: 'activity', ...figures });
  }
}

/** A flow's decisions: `count` payments (for ever without one), the first at once, then one each interval. */
function flowDecisions(flow: FlowSpec): () => PaymentDecision | undefined {
  let seq = 0;
  return () => {
    seq += 1;
    if (flow.count !== undefined && seq > flow.count) return undefined;
    const delayMs = seq === 1 ? 0 : Math.round(flow.interval_seconds * 1000);
    return { seq, from: flow.from, to: flow.to, amountSat: flow.amount_sat, delayMs };
  };
}

/** The activity runner of a lab: at most one run at a time; the last one's records stay until the next starts. */
export class ActivityRunner {
  private run?: ActivityRun;

  constructor(
    private readonly session: LabSession,
    private readonly emit: (event: LabEvent) => void,
  ) {}

  /**
   * Starts `plan`. Refused while a run is under way, for flows that name no Lightning node of the
   * lab, and when a node it needs is not ready (the random part needs every Lightning node).
   */
  async start(plan: ActivityPlan): Promise<ActivityStatus> {
    if (this.run?.running)
      throw conflict(
        'ACTIVITY_RUNNING',
        `lab ${this.session.lab.name} already runs an activity (since ${this.run.startedAt}): stop it first (\`reglab activity stop\`)`,
      );
    const problems = planProblems({ flows: plan.flows }, this.session.lab.spec.nodes);
    if (problems.length > 0)
      throw invalid(
        'INVALID_ACTIVITY',
        problems.map((problem) => `${problem.path.join('.')}: ${problem.message}`).join('; '),
      );
    const needed = new Set(plan.flows.flatMap((flow) => [flow.from, flow.to]));
    const lightning = this.session.lab.spec.nodes.filter((node) => isLightningKind(node.kind)).map((node) => node.name);
    if (plan.random) for (const name of lightning) needed.add(name);
    for (const name of needed) requireReady(this.session, name);
    const pubkeys = new Map(
      await Promise.all([...needed].map(async (name) => [name, await nodePubkey(this.session, name)] as const)),
    );
    let random: RandomActivity | undefined;
    let randomView: PlanView['random'];
    if (plan.random) {
      const nodes = await this.capacities(lightning);
      try {
        random = new RandomActivity(nodes, plan.random);
      } catch (error) {
        throw invalid('NO_ACTIVITY_GRAPH', (error as Error).message);
      }
      randomView = { ...plan.random, ratePerSecond: Math.round(random.rate * 1000) / 1000, nodes };
    }
    if (this.run?.running)
      throw conflict('ACTIVITY_RUNNING', `lab ${this.session.lab.name} started an activity meanwhile`);
    this.run = new ActivityRun(
      this.session,
      { random: randomView, flows: plan.flows, maxInFlight: plan.maxInFlight, durationSeconds: plan.durationSeconds },
      random,
      pubkeys,
      this.emit,
    );
    return this.run.status();
  }

  /** Stops sending; payments under way end and are recorded. */
  stop(reason = 'stopped on request'): ActivityStatus {
    this.run?.stop(reason);
    return this.status();
  }

  status(): ActivityStatus {
    return (
      this.run?.status() ?? {
        lab: this.session.lab.name,
        running: false,
        inFlight: 0,
        ...new PaymentRecords().figures(),
      }
    );
  }

  records(): readonly PaymentRecord[] {
    return this.run?.records.all() ?? [];
  }

  /** Each node's channel capacity, as its node lists its channels: the weights of random activity. */
  private capacities(nodes: string[]): Promise<ActivityNode[]> {
    return Promise.all(
      nodes.map(async (name) => ({
        name,
        capacitySat: (await this.session.lightning(name).channels.list()).reduce(
          (sum, channel) => sum + channel.capacitySat,
          0,
        ),
      })),
    );
  }
}
