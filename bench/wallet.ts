// Wallet-server throughput: internal transfers/s (and invoice creations/s when the Lightning side
// provides its part) with p50/p99 latency, over real HTTP against a real Postgres and Redis
// started like the tests do. Run: npm run bench:wallet  (BENCH_SECONDS, BENCH_CONCURRENCY).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../services/wallet-server/src/app.js';
import { loadConfig } from '../services/wallet-server/src/config.js';
import { startPostgres, startRedis } from '../test/support/infra.js';
import { enrollAndSignIn } from '../test/wallet-server/support.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

export interface BenchResult {
  name: string;
  ops: number;
  seconds: number;
  errors: number;
  latenciesMs: number[];
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export function post(port: number, path: string, token: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data), authorization: `Bearer ${token}`, ...headers },
    }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** Runs `op(worker)` from `concurrency` workers for `seconds`, timing each call. */
export async function run(name: string, op: (worker: number) => Promise<boolean>): Promise<BenchResult> {
  const latenciesMs: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async (_, worker) => {
    while (performance.now() < end) {
      const t = performance.now();
      const ok = await op(worker);
      latenciesMs.push(performance.now() - t);
      if (!ok) errors++;
    }
  }));
  return { name, ops: latenciesMs.length - errors, seconds: (performance.now() - started) / 1000, errors, latenciesMs };
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
  const transfer = (worker: number) => {
    const { from, to } = wallets[worker]!;
    return post(port, '/payments/internal', user.accessToken, { from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 1000 })
      .then((status) => status === 200);
  };
  console.log(`wallet-server bench: ${concurrency} concurrent clients, ${seconds} s per figure, Postgres pool ${config.dbPoolMax}`);
  await run('warm-up', transfer);
  report(await run('internal transfers (HTTP)', transfer));

  // The Lightning side adds invoice creation in services/wallet-server/src/lightning/bench.ts.
  const lightningBench = '../services/wallet-server/src/lightning/bench.js';
  const lightning = await import(lightningBench).catch(() => null) as
    | { benchInvoices(ctx: { app: typeof app; port: number; token: string; wallets: string[]; run: typeof run; report: typeof report; post: typeof post }): Promise<void> }
    | null;
  if (lightning) await lightning.benchInvoices({ app, port, token: user.accessToken, wallets: wallets.map((w) => w.to), run, report, post });
  else console.log('invoice creations: not measured (services/wallet-server/src/lightning/bench.ts not present)');
} finally {
  await app.close();
  agent.destroy();
  await Promise.all([postgres.stop(), redis.stop()]);
}
