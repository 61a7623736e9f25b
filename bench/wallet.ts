// Wallet-server throughput: internal transfers/s (and invoice creations/s when the Lightning side
// provides its part) with p50/p99 latency, over real HTTP against a real Postgres and Redis
// started like the tests do. Run: npm run bench:wallet  (BENCH_SECONDS, BENCH_CONCURRENCY).
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { buildApp } from '../services/wallet-server/src/app.js';
import { loadConfig } from '../services/wallet-server/src/config.js';
import { startPostgres, startRedis } from '../test/support/infra.js';
import { enrollAndSignIn } from '../test/wallet-server/support.js';
import { benchInvoices } from './wallet-lightning.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

export interface BenchResult {
  name: string;
  ops: number;
  seconds: number;
  errors: number;
  latenciesMs: number[];
}

export interface HttpCall {
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

// The load generator runs in a worker thread so that the clients' event loop does not steal the
// server's: each worker client sends its call (POST, JSON), waits for the answer, and repeats.
const LOAD_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, calls, seconds } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: calls.length });
const latencies = [];
let errors = 0;
const end = performance.now() + seconds * 1000;
const one = (call) => new Promise((resolve) => {
  const data = JSON.stringify(call.body);
  const req = http.request({ host: '127.0.0.1', port, path: call.path, method: 'POST', agent,
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), ...call.headers } }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode === 200));
  });
  req.on('error', () => resolve(false));
  req.end(data);
});
const started = performance.now();
Promise.all(calls.map(async (call) => {
  while (performance.now() < end) {
    const t = performance.now();
    const ok = await one(call);
    latencies.push(performance.now() - t);
    if (!ok) errors++;
  }
})).then(() => {
  parentPort.postMessage({ latencies, errors, seconds: (performance.now() - started) / 1000 });
});
`;

/** One client per call, each repeating its call for `seconds`, from a worker thread. */
export function run(name: string, port: number, calls: HttpCall[]): Promise<BenchResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(LOAD_WORKER, { eval: true, workerData: { port, calls, seconds } });
    worker.once('error', reject);
    worker.once('message', (m: { latencies: number[]; errors: number; seconds: number }) => {
      resolve({ name, ops: m.latencies.length - m.errors, seconds: m.seconds, errors: m.errors, latenciesMs: m.latencies });
      void worker.terminate();
    });
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

export function report(r: BenchResult): void {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  console.log(`${r.name.padEnd(28)} ${(r.ops / r.seconds).toFixed(0).padStart(6)} ops/s   p50 ${percentile(sorted, 50).toFixed(2)} ms   p99 ${percentile(sorted, 99).toFixed(2)} ms   errors ${r.errors}`);
}

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
const config = loadConfig({ DATABASE_URL: await postgres.createDatabase('bench'), REDIS_URL: redis.url, LOG_LEVEL: 'warn' });
const app = await buildApp(config, { logger: false });
try {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const user = await enrollAndSignIn(app);
  const wallets: Array<{ from: string; to: string }> = [];
  for (let i = 0; i < concurrency; i++) {
    const [from, to] = await Promise.all(['from', 'to'].map(async (name) =>
      (await app.inject({ method: 'POST', url: '/wallets', payload: { name }, headers: { authorization: `Bearer ${user.accessToken}` } })).json().id as string));
    await app.ledger.recordReceived({ walletId: from!, kind: 'invoice', amountMsat: 10n ** 15n });
    wallets.push({ from: from!, to: to! });
  }
  const auth = { authorization: `Bearer ${user.accessToken}` };
  const transfers: HttpCall[] = wallets.map(({ from, to }) => ({
    path: '/payments/internal', headers: auth, body: { from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 1000 },
  }));
  console.log(`wallet-server bench: ${concurrency} concurrent clients, ${seconds} s per figure, Postgres pool ${config.dbPoolMax}, ` +
    `${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at start`);
  await run('warm-up', port, transfers);
  report(await run('internal transfers (HTTP)', port, transfers));

  await benchInvoices({ app, token: user.accessToken, wallets: wallets.map((w) => w.to), run, report });
} finally {
  await app.close();
  await Promise.all([postgres.stop(), redis.stop()]);
}
