// What the metrics cost the control plane: its CPU with metrics on, scraped as a Prometheus
// scrapes them, and with them off (REGLAB_METRICS=off), over the same lab, at idle and while it
// pays. The lab is brought up once (`reglab up`, the control plane as users run it: a process of
// its own under its keeper); between the two modes only the control plane is stopped and started
// again, and takes the lab back. Each mode's windows are measured in turn, and the rounds
// alternate the modes, so that a change of load on the machine falls on both.
//   npm run bench:metrics   (BENCH_SECONDS: each window, default 60; BENCH_ROUNDS: default 1;
//                            SCRAPE_SECONDS: between scrapes, default 5; PAY_MS: between payments, default 2000)
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findControlPlane, stopControlPlane } from '../control-plane/src/cli/client.js';
import { percentile } from '../scenarios/src/run/statistics.js';
import { sleep, waitFor } from '../lib/wait.js';
import { CLI, runIn } from '../test/support/cli.js';
import { defaultLabYaml } from '../test/support/control-plane.js';
import { Cleanup } from './cleanup.js';
import { ownCpuMs } from './proc.js';
import { benchRun, round } from './results.js';

const LAB = 'bench-metrics';
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
const scrapeSeconds = Number(process.env.SCRAPE_SECONDS ?? 5);
const payMs = Number(process.env.PAY_MS ?? 2_000);

type Mode = 'on' | 'off';
type Load = 'idle' | 'paying';

const folder = mkdtempSync(join(tmpdir(), 'reglab-bench-metrics-'));
const home = join(folder, '.reglab');
const cleanup = new Cleanup();
cleanup.add(() => rmSync(folder, { recursive: true, force: true }));

/** `reglab ARGS...` in the bench's folder, the control plane it starts with metrics in `mode`. */
async function reglab(mode: Mode, ...args: string[]) {
  process.env.REGLAB_METRICS = mode;
  return runIn(folder, process.execPath, [CLI, ...args]);
}

const daemonPid = () => (JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number }).pid;

/** The control plane of the bench's folder, started again with metrics `mode`, once the lab is ready under it. */
async function controlPlaneWith(mode: Mode): Promise<{ url: string; pid: number }> {
  const running = await findControlPlane(home);
  if (running) await stopControlPlane(home, running);
  await reglab(mode, 'status'); // starts it again: the state holds the lab
  const client = await findControlPlane(home);
  if (!client) throw new Error(`the control plane did not start again (its log: ${join(home, 'logs')})`);
  await waitFor(async () => (await (await fetch(`${client.url}/labs/${LAB}`)).json()).status === 'ready', {
    timeoutMs: 120_000,
    what: `lab ${LAB} ready under the control plane with metrics ${mode}`,
  });
  const served = (await fetch(`${client.url}/metrics`)).status;
  if (served !== (mode === 'on' ? 200 : 404)) throw new Error(`GET /metrics answered ${served} with metrics ${mode}`);
  return { url: client.url, pid: daemonPid() };
}

/** Every `intervalMs` until stopped, `work` (one at a time). */
function every(intervalMs: number, work: () => Promise<unknown>): () => Promise<void> {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      await work();
      await sleep(Math.max(0, intervalMs - (Date.now() - started)));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

const scrapeMs: number[] = [];
let scrapeBytes = 0;
let paymentsFailed = 0;

/** The control plane's share of one core over a window, scraped when its metrics are on, paying or not. */
async function window(plane: { url: string; pid: number }, mode: Mode, load: Load): Promise<number> {
  const stops = [
    ...(mode === 'on'
      ? [
          every(scrapeSeconds * 1000, async () => {
            const started = performance.now();
            const text = await (await fetch(`${plane.url}/metrics`)).text();
            scrapeMs.push(performance.now() - started);
            scrapeBytes = text.length;
          }),
        ]
      : []),
    ...(load === 'paying'
      ? [
          every(payMs, async () => {
            const answer = await fetch(`${plane.url}/labs/${LAB}/payments?wait=true`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ from: 'alice', to: 'carol', amount_sat: 10 }),
            });
            if ((await answer.json()).state !== 'completed') paymentsFailed++;
          }),
        ]
      : []),
  ];
  const cpuBefore = ownCpuMs(plane.pid);
  const started = Date.now();
  await sleep(seconds * 1000);
  const share = (ownCpuMs(plane.pid) - cpuBefore) / (Date.now() - started);
  await Promise.all(stops.map((stop) => stop()));
  return share;
}

const bench = benchRun('metrics', { seconds, rounds, scrapeSeconds, payMs, lab: 'lab.yaml' });
const shares: Record<Mode, Record<Load, number[]>> = { on: { idle: [], paying: [] }, off: { idle: [], paying: [] } };
try {
  writeFileSync(join(folder, 'lab.yaml'), defaultLabYaml(LAB));
  const up = await cleanup.acquire(
    () => reglab('on', 'up', '-f', 'lab.yaml'),
    () => reglab('on', 'down'),
  );
  if (up.code !== 0) throw new Error(`reglab up failed: ${up.stderr}\n${up.stdout.slice(-2000)}`);
  for (let round = 0; round < rounds; round++) {
    for (const mode of (round % 2 === 0 ? ['on', 'off'] : ['off', 'on']) as Mode[]) {
      const plane = await controlPlaneWith(mode);
      await sleep(10_000); // the control plane settles after taking the lab back
      for (const load of ['idle', 'paying'] as Load[]) {
        const share = await window(plane, mode, load);
        shares[mode][load].push(share);
        console.log(`metrics ${mode}, ${load}: control plane ${(share * 100).toFixed(2)} % of one core`);
      }
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const pct = (share: number) => round(share * 100, 2);
  const figures = Object.fromEntries(
    (['idle', 'paying'] as Load[]).map((load) => {
      const on = mean(shares.on[load]);
      const off = mean(shares.off[load]);
      return [`${load}Pct`, { metricsOn: pct(on), metricsOff: pct(off), metricsCost: pct(on - off) }];
    }),
  );
  const sorted = [...scrapeMs].sort((a, b) => a - b);
  const scrape = { p50: round(percentile(sorted, 50)), max: round(sorted.at(-1) ?? 0), bytes: scrapeBytes };
  console.log(
    `the metrics' cost: ${figures.idlePct!.metricsCost} % of one core at idle, ${figures.payingPct!.metricsCost} % while paying every ${payMs} ms (a scrape every ${scrapeSeconds} s: ${scrape.p50} ms at the median, ${scrape.max} ms at most, ${scrape.bytes} bytes)`,
  );
  if (paymentsFailed > 0) console.log(`${paymentsFailed} payments of the load failed`);
  bench.record({ ...figures, scrapeMs: { p50: scrape.p50, max: scrape.max }, scrapeBytes, paymentsFailed });
} finally {
  await cleanup.run();
}
