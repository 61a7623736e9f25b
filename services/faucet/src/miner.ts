import type { ChainDriver } from '../../../lib/chain/types.js';
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

/** The control plane's job view (GET /jobs/:id), as far as it is read here. */
interface JobView {
  id: string;
  state: string;
  result?: { hashes?: string[]; height?: number };
  error?: string;
}

/** The control plane's answer to a queued request: 202 `{ job, state, url }`. */
interface QueuedJob {
  job: string;
  state: string;
  url?: string;
}

export interface LabMinerOptions {
  /** The control plane's mine endpoint of this lab, e.g. http://127.0.0.1:7070/labs/demo/mine. */
  mineUrl: string;
  pollMs?: number;
  timeoutMs?: number;
}

/**
 * In a lab: asks the control plane to mine (POST {MINE_URL} {blocks: 1}), so the block goes through
 * the lab's one mining queue with every other mining request (auto-mining, scenario steps), then
 * polls the job (GET /jobs/{id}, the `url` of the answer) until it has completed or failed.
 */
export class LabQueueMiner implements Miner {
  readonly kind = 'lab-queue' as const;

  constructor(
    private readonly options: LabMinerOptions,
    private readonly driver: ChainDriver,
  ) {}

  async mineOne(): Promise<MinedBlock> {
    const { mineUrl, pollMs = 200, timeoutMs = 60_000 } = this.options;
    const queued = await readJson<QueuedJob>(
      mineUrl,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blocks: 1 }) },
      timeoutMs,
    );
    if (!queued.job) throw new Error(`the lab's mine endpoint ${mineUrl} answered without a job id`);
    const jobUrl = new URL(queued.url ?? `/jobs/${encodeURIComponent(queued.job)}`, mineUrl).toString();
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const view = await readJson<JobView>(jobUrl, {}, timeoutMs);
      if (view.state === 'completed') {
        const hash = view.result?.hashes?.at(-1);
        if (!hash) throw new Error(`the lab's mining job ${queued.job} completed without block hashes`);
        return { hash, height: (await this.driver.getBlockSummary(hash)).height };
      }
      if (view.state === 'failed')
        throw new Error(`the lab's mining job ${queued.job} failed: ${view.error ?? 'no reason given'}`);
      if (Date.now() > deadline)
        throw new Error(
          `the lab's mining job ${queued.job} did not finish within ${timeoutMs} ms (last state ${view.state})`,
        );
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

async function readJson<T>(url: string, init: RequestInit, timeoutMs: number): Promise<T> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
