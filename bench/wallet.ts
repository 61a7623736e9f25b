// Wallet-server throughput: internal transfers/s (and invoice creations/s when the Lightning side
// provides its part) with p50/p99 latency, over real HTTP against a real Postgres and Redis
// started like the tests do. Run: npm run bench:wallet  (BENCH_SECONDS, BENCH_CONCURRENCY).
// npm run bench:wallet -- --vs lnbits: the invoice + internal payment pair against LNbits on one
// lab instead (bench/wallet-vs-lnbits.ts).
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { buildApp } from '../services/wallet-server/src/app.js';
import { loadConfig } from '../services/wallet-server/src/config.js';
import { startPostgres, startRedis } from '../test/support/infra.js';
import { enrollAndSignIn } from '../test/wallet-server/support.js';
import { type BenchResult, report, runLoad, type Operation } from './load.js';
import { compareWithLnbits } from './wallet-vs-lnbits.js';
import { benchRun, round } from './results.js';
import { benchInvoices } from './wallet-lightning.js';

const { values: args } = parseArgs({ options: { vs: { type: 'string' } } });
if (args.vs !== undefined && args.vs !== 'lnbits')
  throw new Error(`--vs takes "lnbits" (the one server compared so far), got "${args.vs}"`);
if (args.vs === 'lnbits') {
  await compareWithLnbits();
  process.exit(0);
}

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);
const run = (name: string, port: number, operations: Operation[]) => runLoad(name, { port }, operations, seconds);
const bench = benchRun('wallet', { seconds, concurrency });
/** What each measured load gave, by its name, for the record. */
const measured: Record<string, unknown> = {};
const reportAndKeep = (result: BenchResult): void => {
  const { opsPerSecond, p50Ms, p99Ms } = report(result);
  measured[result.name] = {
    perS: Math.round(opsPerSecond),
    p50Ms: round(p50Ms),
    p99Ms: round(p99Ms),
    errors: result.errors,
  };
};

const [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
const config = loadConfig({
  DATABASE_URL: await postgres.createDatabase('bench'),
  REDIS_URL: redis.url,
  LOG_LEVEL: 'warn',
});
const app = await buildApp(config, { logger: false });
try {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  const user = await enrollAndSignIn(app);
  const wallets: Array<{ from: string; to: string }> = [];
  for (let i = 0; i < concurrency; i++) {
    const [from, to] = await Promise.all(
      ['from', 'to'].map(
        async (name) =>
          (
            await app.inject({
              method: 'POST',
              url: '/wallets',
              payload: { name },
              headers: { authorization: `Bearer ${user.accessToken}` },
            })
          ).json().id as string,
      ),
    );
    await app.ledger.recordReceived({ walletId: from!, kind: 'invoice', amountMsat: 10n ** 15n });
    wallets.push({ from: from!, to: to! });
  }
  const auth = { authorization: `Bearer ${user.accessToken}` };
  const transfers: Operation[] = wallets.map(({ from, to }) => [
    {
      path: '/payments/internal',
      headers: auth,
      body: { from_wallet_id: from, to_wallet_id: to, asset_kind: 'btc', amount_msat: 1000 },
    },
  ]);
  console.log(
    `wallet-server bench: ${concurrency} concurrent clients, ${seconds} s per figure, Postgres pool ${config.dbPoolMax}, ` +
      `${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)} at start`,
  );
  await run('warm-up', port, transfers);
  reportAndKeep(await run('internal transfers (HTTP)', port, transfers));

  await benchInvoices({ app, token: user.accessToken, wallets: wallets.map((w) => w.to), run, report: reportAndKeep });
  bench.record(measured);
} finally {
  await app.close();
  await Promise.all([postgres.stop(), redis.stop()]);
}
