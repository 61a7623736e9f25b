import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Job, Queue, QueueEvents, Worker } from 'bullmq';
import { DomainError, conflict, describeError, errorCodeOf } from '../../lib/errors.js';
import { waitFor } from '../../lib/wait.js';
import type { LabEventListener } from './lab/events.js';
import {
  channelToClose,
  closeChannel,
  fund,
  keysendBetween,
  mineBlocks,
  nodeNameOf,
  openChannelBetween,
  payBetween,
  payInvoice,
  waitChannelActive,
  waitChannelKnownToLab,
  type PaymentResult,
} from './lab/operations.js';
import { sendAssetBetween } from './lab/assets.js';
import { reorg } from './lab/reorg.js';
import { FINAL_PAYMENT_REFUSALS } from './lab/payment-errors.js';
import type { LabSession } from './lab/session.js';

export type QueueName = 'mining' | 'funding' | 'channels' | 'payments' | 'assets';
export const QUEUE_NAMES: QueueName[] = ['mining', 'funding', 'channels', 'payments', 'assets'];

export type JobRequest = (
  | { queue: 'mining'; action: 'mine'; lab: string; blocks: number; address?: string }
  | { queue: 'mining'; action: 'reorg'; lab: string; blocks: number }
  | { queue: 'funding'; lab: string; node?: string; address?: string; amountSat: string }
  | {
      queue: 'channels';
      action: 'open';
      lab: string;
      from: string;
      to: string;
      capacitySat: number;
      pushSat: number;
      private?: boolean;
    }
  | {
      queue: 'channels';
      action: 'close';
      lab: string;
      node: string;
      partner?: string;
      channelId?: string;
      force: boolean;
    }
  | { queue: 'payments'; action: 'invoice'; lab: string; from: string; to: string; amountSat: number }
  | { queue: 'payments'; action: 'pay'; lab: string; from: string; invoice: string }
  | { queue: 'payments'; action: 'keysend'; lab: string; from: string; to: string; amountSat: number }
  | { queue: 'assets'; lab: string; from: string; to: string; assetId: string; amount: number; witness: boolean }
) & {
  /** What an earlier attempt of the job already did (see perform). */
  progress?: Record<string, unknown>;
};

/** A force-closed channel's sweep, once the node tells its timelock (a moment after the close is mined). */
function sweepOf(session: LabSession, node: string, fundingTxid: string) {
  return waitFor(
    async () =>
      (await session.lightning(node).channels.pendingCloses()).find(
        (close) => close.fundingTxid === fundingTxid && close.blocksUntilSweep !== undefined,
      ),
    {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: `${node} to report when the funds of ${fundingTxid} are swept`,
    },
  ).catch(() => undefined);
}

const autoMiningScheduler = (lab: string) => `auto-mine-${lab}`;

/** From when a job was queued to when it ended, retries included: what its caller waited. */
const runTime = (job: Job) => (job.finishedOn ?? Date.now()) - job.timestamp;

/**
 * A job a killed control plane left active is taken back by the next one once its lock has
 * expired: within 15 s rather than BullMQ's 30 to 60 s, as a user's `reglab pay` waits for it. The
 * lock is renewed every 5 s meanwhile.
 */
const STALLED_JOBS_TAKEN_BACK = { lockDuration: 10_000, stalledInterval: 5_000 };

interface OpenQueues {
  queues: Map<QueueName, Queue>;
  events: Map<QueueName, QueueEvents>;
  workers: Worker[];
}

export interface JobView {
  id: string;
  queue: QueueName;
  lab: string;
  state: string;
  request: JobRequest;
  result?: unknown;
  error?: string;
  attempts: number;
  /** How often a control plane took the job back from one that ended while running it. */
  takenBack: number;
  createdAt: string;
  finishedAt?: string;
}

/**
 * The lab's work queues on Redis (BullMQ). Mining has one worker with concurrency 1, so blocks are
 * mined strictly one request after another; funding too, since it spends from one lab wallet.
 * Channel and payment jobs retry; mining never does (a retried mine could mine twice).
 */
export class JobQueues {
  private opening?: Promise<OpenQueues>;

  constructor(
    /** The Redis the queues live on, asked when they open. */
    private readonly redisUrl: () => Promise<string>,
    private readonly sessionOf: (lab: string) => LabSession,
    private readonly onEvent: LabEventListener,
    /**
     * The Redis is the control plane's own, started empty: it holds no job and no schedule this
     * process did not add, so the queues open on first use (see open()).
     */
    private readonly redisStartsEmpty = false,
  ) {}

  /**
   * Opens the queues and starts their workers, which take up jobs left waiting by a control plane
   * before this one. On a Redis of its own, started empty, nothing is waiting: the control plane
   * leaves them closed until a call needs them. Loading BullMQ and opening its twenty Redis
   * connections, just as a `reglab up` is starting the lab, would take CPU from that up (bench:snapshot).
   */
  open(): Promise<OpenQueues> {
    this.opening ??= this.openQueues().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  private async openQueues(): Promise<OpenQueues> {
    const { Queue, QueueEvents, Worker } = await import('bullmq');
    // BullMQ opens and closes its own connections from these options
    const { hostname, port } = new URL(await this.redisUrl());
    const connection = { host: hostname, port: Number(port || 6379), maxRetriesPerRequest: null };
    const concurrency: Record<QueueName, number> = { mining: 1, funding: 1, channels: 2, payments: 8, assets: 1 };
    const open: OpenQueues = { queues: new Map(), events: new Map(), workers: [] };
    for (const name of QUEUE_NAMES) {
      open.queues.set(name, new Queue(name, { connection, prefix: 'reglab' }));
      open.events.set(name, new QueueEvents(name, { connection, prefix: 'reglab' }));
      // a mining job a killed control plane left active fails rather than runs again (it may have mined)
      const worker = new Worker(name, (job: Job<JobRequest>) => this.run(job), {
        connection,
        prefix: 'reglab',
        concurrency: concurrency[name],
        ...STALLED_JOBS_TAKEN_BACK,
        ...(name === 'mining' ? { maxStalledCount: 0 } : {}),
      });
      worker.on('completed', (job) =>
        this.onEvent({
          type: 'job',
          lab: job.data.lab,
          job: job.id!,
          queue: name,
          state: 'completed',
          result: job.returnvalue,
          ms: runTime(job),
        }),
      );
      // BullMQ tells of every failed attempt; the job has failed once no attempt follows (finishedOn set)
      worker.on('failed', (job, error) => {
        if (!job?.finishedOn) return;
        this.onEvent({
          type: 'job',
          lab: job.data.lab,
          job: job.id!,
          queue: name,
          state: 'failed',
          error: error.message,
          code: errorCodeOf(error),
          ms: runTime(job),
        });
      });
      open.workers.push(worker);
    }
    return open;
  }

  /**
   * Queues the job and answers its id. With `idempotencyKey`, a job already queued with that key
   * (kept a day after it ends) is answered instead: a client that lost the answer asks again safely.
   * The key given to another request of the queue is a conflict.
   */
  async add(request: JobRequest, idempotencyKey?: string): Promise<string> {
    const id = `${request.queue}-${idempotencyKey ?? randomUUID()}`;
    const queue = await this.queue(request.queue);
    if (idempotencyKey !== undefined) {
      const earlier = await queue.getJob(id);
      if (earlier) {
        const { progress: _done, ...asked } = earlier.data;
        if (!isDeepStrictEqual(asked, JSON.parse(JSON.stringify(request)))) {
          throw conflict(
            'IDEMPOTENCY_KEY_REUSED',
            `the Idempotency-Key "${idempotencyKey}" was given to another request (job ${id}: ${JSON.stringify(asked)}): give each new request a key of its own`,
          );
        }
        return id;
      }
    }
    const retries = request.queue === 'mining' ? 1 : 3;
    await queue.add(request.queue, request, {
      jobId: id,
      attempts: retries,
      backoff: { type: 'exponential', delay: 1_000 },
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: 24 * 3600 },
    });
    return id;
  }

  async get(id: string): Promise<JobView | undefined> {
    const queueName = QUEUE_NAMES.find((name) => id.startsWith(`${name}-`));
    if (!queueName) return undefined;
    // the state first: a job read after it is at least as finished, so "completed" comes with its result
    const queue = await this.queue(queueName);
    const state = await queue.getJobState(id);
    const job = await queue.getJob(id);
    if (!job) return undefined;
    return {
      id,
      queue: queueName,
      lab: job.data.lab,
      state,
      request: job.data,
      result: job.returnvalue ?? undefined,
      error: job.failedReason || undefined,
      attempts: job.attemptsMade,
      takenBack: job.stalledCounter,
      createdAt: new Date(job.timestamp).toISOString(),
      finishedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : undefined,
    };
  }

  /** Waits until the job has finished (or `timeoutMs` passed) and returns its view. */
  async wait(id: string, timeoutMs: number): Promise<JobView | undefined> {
    const view = await this.get(id);
    if (!view) return undefined;
    const { queues, events } = await this.open();
    const job = await queues.get(view.queue)!.getJob(id);
    await job?.waitUntilFinished(events.get(view.queue)!, timeoutMs).catch(() => undefined);
    return this.get(id);
  }

  /** Whether the queues may be waiting with work: opened, or on a Redis this process did not start empty. */
  get mayHoldWork(): boolean {
    return this.opening !== undefined || !this.redisStartsEmpty;
  }

  /**
   * The jobs of each queue by state (waiting, active, delayed, completed, failed, ...), only while
   * the queues are open: asking must not open them (a scrape of the metrics would start their Redis).
   */
  async counts(): Promise<Map<QueueName, Record<string, number>> | undefined> {
    const open = await this.opening?.catch(() => undefined);
    if (!open) return undefined;
    const counts = await Promise.all(
      QUEUE_NAMES.map(async (name) => [name, await open.queues.get(name)!.getJobCounts()] as const),
    );
    return new Map(counts);
  }

  /** Mines one block every `seconds` for the lab (0 stops it). */
  async setAutoMining(lab: string, seconds: number): Promise<void> {
    const schedulerId = autoMiningScheduler(lab);
    if (seconds <= 0) {
      if (!this.mayHoldWork) return;
      await (await this.queue('mining')).removeJobScheduler(schedulerId);
      return;
    }
    await (await this.queue('mining')).upsertJobScheduler(
      schedulerId,
      { every: seconds * 1000 },
      { name: 'mining', data: { queue: 'mining', action: 'mine', lab, blocks: 1 } satisfies JobRequest },
    );
  }

  /** The seconds between the lab's auto-mined blocks; 0 when it has no schedule. */
  async autoMiningSeconds(lab: string): Promise<number> {
    if (!this.mayHoldWork) return 0;
    const scheduler = await (await this.queue('mining')).getJobScheduler(autoMiningScheduler(lab));
    return scheduler?.every ? scheduler.every / 1000 : 0;
  }

  async close(): Promise<void> {
    // queues that never opened, or failed to, hold nothing to close
    const open = await this.opening?.catch(() => undefined);
    if (!open) return;
    const { workers, events, queues } = open;
    await Promise.all(workers.map((worker) => worker.close()));
    await Promise.all([...events.values()].map((queueEvents) => queueEvents.close()));
    await Promise.all([...queues.values()].map((queue) => queue.close()));
  }

  private async queue(name: QueueName): Promise<Queue> {
    return (await this.open()).queues.get(name)!;
  }

  private async run(job: Job<JobRequest>): Promise<unknown> {
    try {
      return await this.perform(job);
    } catch (error) {
      // the failure's code goes with it to the job event (the metrics count failures by it)
      const code = errorCodeOf(error);
      // a wrong request stays wrong, and a payment refused for the lab's state is refused again: do not retry them
      if (error instanceof DomainError && (error.kind === 'invalid' || FINAL_PAYMENT_REFUSALS.has(error.code)))
        throw Object.assign(new (await import('bullmq')).UnrecoverableError(error.message), { code });
      throw error instanceof Error ? error : Object.assign(new Error(describeError(error)), { code });
    }
  }

  /**
   * Retries must not repeat what already happened: the irreversible step of each job (a funding
   * transaction, a channel opening, an invoice) is recorded in the job before the steps after it.
   */
  private async perform(job: Job<JobRequest>): Promise<unknown> {
    const request = job.data;
    const session = this.sessionOf(request.lab);
    const progress = job.data.progress ?? {};
    const record = async (step: Record<string, unknown>) => {
      Object.assign(progress, step);
      await job.updateData({ ...request, progress });
    };
    const mined = (height: number, blocks: number) =>
      this.onEvent({ type: 'blocks', lab: request.lab, height, mined: blocks });
    const paid = (from: string, to: string | undefined, payment: PaymentResult) => {
      this.onEvent({
        type: 'payment',
        lab: request.lab,
        from,
        to,
        amountSat: payment.amountSat,
        feeSat: payment.feeSat,
        paymentHash: payment.paymentHash,
      });
      return payment;
    };
    switch (request.queue) {
      case 'mining': {
        if (request.action === 'reorg') {
          const result = await reorg(session, request.blocks);
          mined(result.newHeight, request.blocks + 1);
          return result;
        }
        const result = await mineBlocks(session, request.blocks, request.address);
        mined(result.height, request.blocks);
        return result;
      }
      case 'funding': {
        if (!progress.txid)
          await record(
            await fund(session, {
              node: request.node,
              address: request.address,
              amountSat: BigInt(request.amountSat),
              confirm: false,
            }),
          );
        const { height } = await mineBlocks(session, 1);
        mined(height, 1);
        return { ...progress, height };
      }
      case 'channels': {
        if (request.action === 'close') {
          const channel = await channelToClose(session, request);
          const closed = await closeChannel(session, request.node, channel, request.force);
          const { height } = await mineBlocks(session, 1);
          mined(height, 1);
          const partner = request.partner ?? nodeNameOf(session, channel.partnerPubkey) ?? channel.partnerPubkey;
          this.onEvent({
            type: 'channel',
            lab: request.lab,
            node: request.node,
            partner,
            state: 'closed',
            fundingTxid: channel.fundingTxid,
            closingTxid: closed.closingTxid,
          });
          const pending = request.force ? await sweepOf(session, request.node, channel.fundingTxid) : undefined;
          return {
            channelId: channel.id,
            closingTxid: closed.closingTxid,
            force: request.force,
            ...(pending?.blocksUntilSweep !== undefined ? { maturityBlocks: pending.blocksUntilSweep } : {}),
          };
        }
        if (!progress.fundingTxid) await record(await openChannelBetween(session, request));
        const { height } = await mineBlocks(session, 6);
        mined(height, 6);
        const fundingTxid = progress.fundingTxid as string;
        await Promise.all([
          waitChannelActive(session, request.from, request.to, { fundingTxid }),
          waitChannelActive(session, request.to, request.from, { fundingTxid }),
        ]);
        if (!request.private) await waitChannelKnownToLab(session, request.from, request.to, fundingTxid);
        this.onEvent({
          type: 'channel',
          lab: request.lab,
          node: request.from,
          partner: request.to,
          state: 'open',
          fundingTxid,
        });
        return progress;
      }
      case 'payments':
        switch (request.action) {
          case 'invoice':
            return paid(
              request.from,
              request.to,
              await payBetween(session, request, {
                invoice: progress.invoice as string | undefined,
                onInvoice: (invoice) => record({ invoice }),
              }),
            );
          case 'pay':
            return paid(request.from, undefined, await payInvoice(session, request.from, request.invoice));
          case 'keysend':
            return paid(request.from, request.to, await keysendBetween(session, request));
        }
        break;
      case 'assets':
        return sendAssetBetween(session, request, { progress, record, onMined: (height) => mined(height, 1) });
    }
  }
}
