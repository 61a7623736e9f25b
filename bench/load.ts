// The benches' load generator: clients in a worker thread (so their event loop does not steal the
// server's), each repeating its operation — one or more HTTP POSTs in a row — for a fixed time.
import { Worker } from 'node:worker_threads';

export interface HttpStep {
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Sets body[key] to the field of the previous step's JSON answer (e.g. the invoice to pay). */
  from?: { key: string; field: string };
  /** Fields the JSON answer must have (besides a 2xx status) for the operation to count. */
  expect?: Record<string, unknown>;
}

/** One operation: its steps run one after the other; it fails at the first step that fails. */
export type Operation = HttpStep[];

export interface BenchResult {
  name: string;
  ops: number;
  seconds: number;
  errors: number;
  latenciesMs: number[];
  /** The first failed answer, to tell what went wrong. */
  firstError: string | null;
}

const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { host, port, operations, seconds } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: operations.length });
const latencies = [];
let errors = 0;
let firstError = null;
const end = performance.now() + seconds * 1000;
const post = (step, previous) => new Promise((resolve) => {
  const body = step.from ? { ...step.body, [step.from.key]: previous[step.from.field] } : step.body;
  const data = JSON.stringify(body);
  const req = http.request({ host, port, path: step.path, method: 'POST', agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...step.headers } }, (res) => {
    const chunks = [];
    res.on('data', (chunk) => chunks.push(chunk));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json = null;
      try { json = JSON.parse(text); } catch {}
      const ok = res.statusCode >= 200 && res.statusCode < 300 && json !== null &&
        Object.entries(step.expect ?? {}).every(([k, v]) => json[k] === v);
      if (!ok && firstError === null) firstError = step.path + ': ' + res.statusCode + ' ' + text.slice(0, 300);
      resolve(ok ? json : null);
    });
  });
  req.on('error', (err) => {
    if (firstError === null) firstError = step.path + ': ' + err.message;
    resolve(null);
  });
  req.end(data);
});
const operation = async (steps) => {
  let previous = {};
  for (const step of steps) {
    previous = await post(step, previous);
    if (previous === null) return false;
  }
  return true;
};
const started = performance.now();
Promise.all(operations.map(async (steps) => {
  while (performance.now() < end) {
    const t = performance.now();
    const ok = await operation(steps);
    latencies.push(performance.now() - t);
    if (!ok) errors++;
  }
})).then(() => {
  parentPort.postMessage({ latencies, errors, firstError, seconds: (performance.now() - started) / 1000 });
});
`;

/** One client per operation, each repeating it for `seconds`. */
export function runLoad(
  name: string,
  target: { host?: string; port: number },
  operations: Operation[],
  seconds: number,
): Promise<BenchResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, {
      eval: true,
      workerData: { host: target.host ?? '127.0.0.1', port: target.port, operations, seconds },
    });
    worker.once('error', reject);
    worker.once('message', (m: { latencies: number[]; errors: number; firstError: string | null; seconds: number }) => {
      resolve({
        name,
        ops: m.latencies.length - m.errors,
        seconds: m.seconds,
        errors: m.errors,
        latenciesMs: m.latencies,
        firstError: m.firstError,
      });
      void worker.terminate();
    });
  });
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

export interface Figures {
  opsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export function figures(r: BenchResult): Figures {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return { opsPerSecond: r.ops / r.seconds, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

export function report(r: BenchResult): Figures {
  const f = figures(r);
  const rate = f.opsPerSecond >= 100 ? f.opsPerSecond.toFixed(0) : f.opsPerSecond.toFixed(1);
  console.log(
    `${r.name.padEnd(34)} ${rate.padStart(6)} ops/s   p50 ${f.p50Ms.toFixed(2)} ms   p99 ${f.p99Ms.toFixed(2)} ms   errors ${r.errors}`,
  );
  if (r.firstError) console.log(`  first error: ${r.firstError}`);
  return f;
}
