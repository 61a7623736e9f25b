// npm run bench:chain   (then runs bench/indexer-catchup.ts, the indexer's own benchmark)
// Brings up btcd + one lnd node, the indexer and the chain-data adapter (in-process), and prints:
//   - adapter address endpoints: p50/p99 latency and requests/s at a fixed concurrency, for an
//     address with BENCH_TXS transactions (default 60: more than two pages of history);
//   - faucet claim-to-confirmed latency: POST /api/claim until the adapter reports the tx confirmed.
// BENCH_SECONDS (per endpoint, default 5), BENCH_CONCURRENCY (default 8), BENCH_CLAIMS (default 20).
import { Redis } from 'ioredis';
import { buildApp as buildFaucet } from '../services/faucet/src/app.js';
import { Cooldowns } from '../services/faucet/src/cooldown.js';
import { Faucet } from '../services/faucet/src/faucet.js';
import { DirectMiner } from '../services/faucet/src/miner.js';
import { NodeWallet } from '../services/faucet/src/wallet.js';
import { lightningClient } from '../lib/lightning/implementations.js';
import { freshKey, startAdapter, waitIndexed } from '../test/chain-adapter/support.js';
import { startRedis } from '../test/support/infra.js';
import { startRegtest } from '../test/support/regtest.js';
import { benchRun, round } from './results.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const claims = Number(process.env.BENCH_CLAIMS ?? 20);
const historyTxs = Number(process.env.BENCH_TXS ?? 60);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** p50, p99 and (when timed) requests/s, for the record. */
function stats(latencies: number[], elapsedMs?: number): Record<string, number> {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50Ms: round(percentile(sorted, 50)),
    p99Ms: round(percentile(sorted, 99)),
    ...(elapsedMs === undefined ? {} : { perS: Math.round((latencies.length * 1000) / elapsedMs) }),
  };
}

function summary(label: string, latencies: number[], elapsedMs?: number): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  const rate =
    elapsedMs === undefined ? '' : `  ${((latencies.length * 1000) / elapsedMs).toFixed(0).padStart(5)} req/s`;
  return `${label.padEnd(44)} n=${String(latencies.length).padStart(5)}  p50 ${ms(percentile(sorted, 50)).padStart(9)}  p99 ${ms(percentile(sorted, 99)).padStart(9)}${rate}`;
}

/** `concurrency` loops requesting `url` for `seconds`; every answer must be 200. */
async function load(url: string): Promise<{ latencies: number[]; elapsedMs: number }> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const begin = performance.now();
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
        latencies.push(performance.now() - begin);
      }
    }),
  );
  return { latencies, elapsedMs: performance.now() - started };
}

const bench = benchRun('chain', { seconds, concurrency, claims, historyTxs });
const routes: Record<string, unknown> = {};
console.log('bringing up btcd + lnd (alice), the indexer and the adapter...');
const regtest = await startRegtest({ lnd: ['alice'], fundingSat: 50_000_000 });
const redisServer = await startRedis();
const redis = new Redis(redisServer.url);
const adapter = await startAdapter(regtest);
try {
  const busy = freshKey();
  for (let i = 0; i < historyTxs; i++) {
    await regtest.session.labWallet.send([{ address: busy.address, amountSat: BigInt(10_000 + i) }]);
    if (i % 20 === 19) await regtest.chain.mine(1, freshKey().address);
  }
  await regtest.chain.mine(1, freshKey().address);
  await waitIndexed(adapter, regtest);

  console.log(
    `\nadapter, address with ${historyTxs} confirmed txs, ${concurrency} concurrent clients, ${seconds} s each:`,
  );
  const firstPage = await adapter.get<{ txid: string }[]>(`/api/address/${busy.address}/txs`);
  const endpoints = [
    `/api/address/${busy.address}`,
    `/api/address/${busy.address}/utxo`,
    `/api/address/${busy.address}/txs`,
    `/api/address/${busy.address}/txs/chain/${firstPage.at(-1)!.txid}`,
    '/api/v1/fees/recommended',
  ];
  for (const path of endpoints) {
    const { latencies, elapsedMs } = await load(`${adapter.url}${path}`);
    const route = path.replace(busy.address, '{a}').replace(/[0-9a-f]{64}/, '{txid}');
    console.log(summary(route, latencies, elapsedMs));
    routes[`GET ${route}`] = stats(latencies, elapsedMs);
  }

  const wallet = new NodeWallet(lightningClient('lnd', regtest.lndCredentials('alice')));
  const faucet = new Faucet({
    wallet,
    miner: new DirectMiner(regtest.chain, () => wallet.ownAddress()),
    cooldowns: new Cooldowns(redis, 900),
    driver: regtest.chain,
    claimSat: 100_000,
  });
  const faucetApp = await buildFaucet({ faucet, trustProxy: true });
  const faucetUrl = await faucetApp.listen({ host: '127.0.0.1', port: 0 });
  const latencies: number[] = [];
  const answerLatencies: number[] = [];
  for (let i = 0; i < claims; i++) {
    const begin = performance.now();
    const response = await fetch(`${faucetUrl}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.77.0.${i + 1}` },
      body: JSON.stringify({ address: freshKey().address }),
    });
    const body = (await response.json()) as { txid: string };
    if (response.status !== 200) throw new Error(`claim ${i} answered ${response.status}: ${JSON.stringify(body)}`);
    answerLatencies.push(performance.now() - begin);
    for (;;) {
      const status = (await (await fetch(`${adapter.url}/api/tx/${body.txid}/status`)).json()) as {
        confirmed?: boolean;
      };
      if (status.confirmed) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    latencies.push(performance.now() - begin);
  }
  await faucetApp.close();
  console.log(`\nfaucet, ${claims} claims one after another (send through lnd, mine 1 block):`);
  console.log(summary('claim answered (sent + mined)', answerLatencies));
  console.log(summary('claim to confirmed in the adapter', latencies));
  bench.record({ routes, claimAnsweredMs: stats(answerLatencies), claimConfirmedMs: stats(latencies) });
} finally {
  await adapter.close();
  redis.disconnect();
  await redisServer.stop();
  await regtest.stop();
}
