// The worker thread that runs rgb-lib for the whole process. The binding's calls block their
// thread (rgb-lib talks to the indexer and the proxy synchronously), so they run off the event
// loop; and they all run on this one thread, because the SWIG addon (V8's own API, not N-API) keeps
// its class templates in process-wide globals that each loading thread resets: loaded on several
// threads, it crashed the process.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { projectRoot } from '../project-root.js';
import { RgbLibError } from './rgb-lib-error.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
export type RgbLibRequest = WithoutId<WorkerRequest>;

function startWorker(): Worker {
  const compiled = new URL('./rgb-lib-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return new Worker(compiled);
  // From the TypeScript sources (vitest, tsx): the worker registers tsx before it loads its module.
  const tsx = pathToFileURL(join(projectRoot(), 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs')).href;
  const source = new URL('./rgb-lib-worker.ts', import.meta.url).href;
  return new Worker(
    `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}); });`,
    { eval: true },
  );
}

class RgbLibThread {
  private readonly worker = startWorker();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  constructor(onExit: () => void) {
    this.worker.on('message', (reply: WorkerReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      this.refWhileBusy();
      if ('error' in reply) waiting?.reject(new RgbLibError(reply.error));
      else waiting?.resolve(reply.result);
    });
    const failAll = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', failAll);
    this.worker.on('exit', (code) => {
      onExit();
      failAll(new Error(`the rgb-lib worker thread exited (code ${code})`));
    });
    this.refWhileBusy();
  }

  /** The thread keeps the process alive only while a call is under way. */
  private refWhileBusy(): void {
    if (this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  request(message: RgbLibRequest): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.refWhileBusy();
      this.worker.postMessage({ ...message, id });
    });
  }
}

let thread: RgbLibThread | undefined;

/** Runs one request on the process's rgb-lib thread, starting it on first use. */
export function rgbLibRequest(message: RgbLibRequest): Promise<unknown> {
  thread ??= new RgbLibThread(() => (thread = undefined));
  return thread.request(message);
}
