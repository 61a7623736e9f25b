// The HTTP thread's handle on the wallet thread (worker.ts): each call is a message, answered in the
// order sent; an rgb-lib failure comes back as an RgbLibError.
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseRgbLibError } from './rgb-lib-error.js';
import type { WalletOps } from './wallet-ops.js';

export type WalletOp = keyof WalletOps;

export interface WalletRequest {
  id: number;
  op: WalletOp;
  args: unknown[];
}

export type WalletReply = { id: number; result: unknown } | { id: number; error: string };

/**
 * worker.js once compiled. Run from source under tsx (tests, development), a worker does not get
 * the TypeScript loader on Node 20 (tsx issue #354), so its entry registers tsx before loading worker.ts.
 */
function startWorker(): Worker {
  if (extname(fileURLToPath(import.meta.url)) !== '.ts') return new Worker(new URL('./worker.js', import.meta.url));
  const entry = new URL('./worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`, { eval: true });
}

export class WalletThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private failure: Error | undefined;

  constructor() {
    this.worker = startWorker();
    this.worker.on('message', (reply: WalletReply) => {
      const call = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) call?.reject(parseRgbLibError(reply.error));
      else call?.resolve(reply.result);
    });
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`the wallet thread exited (code ${code})`)));
  }

  call<K extends WalletOp>(op: K, ...args: Parameters<WalletOps[K]>): Promise<ReturnType<WalletOps[K]>> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ id, op, args } satisfies WalletRequest);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }
}
