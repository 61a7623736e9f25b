import type { ChainDriver } from '../../../control-plane/src/drivers/chain/types.js';
import { SerialQueue } from './serial-queue.js';

export interface MinedBlock {
  hash: string;
  height: number;
}

/** Mines one block, so that what was just sent confirms. */
export interface Miner {
  readonly kind: 'lab-queue' | 'direct';
  mineOne(): Promise<MinedBlock>;
}

/**
 * Standalone use: mines through the chain node directly, one block at a time (two templates
 * built at once would compete for the same height), paying the coinbase to `address`.
 */
export class DirectMiner implements Miner {
  readonly kind = 'direct' as const;
  private readonly queue = new SerialQueue();

  constructor(
    private readonly driver: ChainDriver,
    private readonly address: () => Promise<string>,
  ) {}

  mineOne(): Promise<MinedBlock> {
    return this.queue.run(async () => {
      const [hash] = await this.driver.mine(1, await this.address());
      return { hash: hash!, height: (await this.driver.getBlockSummary(hash!)).height };
    });
  }
}

interface JobView {
  id?: string;
  state?: string;
  result?: { hashes?: string[]; height?: number };
  error?: string;
  job?: JobView;
}

export interface LabMinerOptions {
  /** POST target: the control plane's mine endpoint of this lab, e.g. http://127.0.0.1:7070/labs/demo/mine. */
  mineUrl: string;
  /** How a job is read back; by default the Location header of the answer, else {origin}/jobs/{id}. */
  jobUrl?: (id: string) => string;
  pollMs?: number;
  timeoutMs?: number;
}

/**
 * In a lab: asks the control plane to mine, so the block goes through the lab's one mining queue
 * with every other mining request (auto-mining, scenario steps), then polls the job until it is done.
 */
export class LabQueueMiner implements Miner {
  readonly kind = 'lab-queue' as const;

  constructor(
    private readonly options: LabMinerOptions,
    private readonly driver: ChainDriver,
  ) {}

  async mineOne(): Promise<MinedBlock> {
    const { mineUrl, pollMs = 200, timeoutMs = 60_000 } = this.options;
    const response = await fetch(mineUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blocks: 1 }), signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`the lab's mine endpoint ${mineUrl} answered ${response.status}: ${await response.text()}`);
    let view = unwrap((await response.json()) as JobView);
    if (!view.id) throw new Error(`the lab's mine endpoint ${mineUrl} answered without a job id`);
    const location = response.headers.get('location');
    const jobUrl = location ? new URL(location, mineUrl).toString() : (this.options.jobUrl ?? ((id) => `${new URL(mineUrl).origin}/jobs/${id}`))(view.id);
    const deadline = Date.now() + timeoutMs;
    while (view.state !== 'completed') {
      if (view.state === 'failed') throw new Error(`the lab's mining job ${view.id} failed: ${view.error ?? 'no reason given'}`);
      if (Date.now() > deadline) throw new Error(`the lab's mining job ${view.id} did not finish within ${timeoutMs} ms (last state ${view.state})`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const poll = await fetch(jobUrl, { signal: AbortSignal.timeout(timeoutMs) });
      if (!poll.ok) throw new Error(`reading mining job ${view.id} at ${jobUrl} answered ${poll.status}: ${await poll.text()}`);
      view = unwrap((await poll.json()) as JobView);
    }
    const hash = view.result?.hashes?.at(-1);
    if (!hash) throw new Error(`the lab's mining job ${view.id} finished without block hashes`);
    return { hash, height: (await this.driver.getBlockSummary(hash)).height };
  }
}

const unwrap = (view: JobView): JobView => view.job ?? view;
