// Payments a second the payment activity sustains on the default lab: `reglab up` (the control
// plane as users run it), then random activity asked at rising rates, each for a window after a
// warm-up. For each rate: the payments that succeeded and failed a second, their latency, and the
// control plane's CPU. The highest rate whose payments mostly succeed at the pace asked is the figure.
//   npm run bench:activity   (BENCH_SECONDS: each window, default 30; RATES: default 3,10,30;
//                             MAX_IN_FLIGHT: default 8; WARMUP_SECONDS: default 10)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentRecord } from '../control-plane/src/activity/records.js';
import type { ActivityStatus } from '../control-plane/src/activity/runner.js';
import { DEFAULT_EXPECTED_AMOUNT_SAT } from '../control-plane/src/activity/request.js';
import { WINDOW_SECONDS } from '../control-plane/src/activity/random-activity.js';
import { findControlPlane } from '../control-plane/src/cli/client.js';
import { percentile } from '../scenarios/src/run/statistics.js';
import { sleep, waitFor } from '../lib/wait.js';
import { CLI, runIn } from '../test/support/cli.js';
import { defaultLabYaml } from '../test/support/control-plane.js';
import { Cleanup } from './cleanup.js';
import { ownCpuMs } from './proc.js';
import { benchRun, round } from './results.js';

const LAB = 'bench-activity';
const seconds = Number(process.env.BENCH_SECONDS ?? 30);
const warmupSeconds = Number(process.env.WARMUP_SECONDS ?? 10);
const rates = (process.env.RATES ?? '3,10,30').split(',').map(Number);
const maxInFlight = Number(process.env.MAX_IN_FLIGHT ?? 8);

const folder = mkdtempSync(join(tmpdir(), 'reglab-bench-activity-'));
const home = join(folder, '.reglab');
const cleanup = new Cleanup();
cleanup.add(() => rmSync(folder, { recursive: true, force: true }));
const reglab = (...args: string[]) => runIn(folder, process.execPath, [CLI, ...args]);

interface RateFigures {
  askedPerSecond: number;
  succeededPerSecond: number;
  failedPerSecond: number;
  latencyMs: { p50: number; p95: number };
  controlPlaneCpuPct: number;
  failuresByReason: Record<string, number>;
}

const bench = benchRun('activity', { seconds, warmupSeconds, rates, maxInFlight, lab: 'lab.yaml' });
try {
  writeFileSync(join(folder, 'lab.yaml'), defaultLabYaml(LAB));
  const up = await cleanup.acquire(
    () => reglab('up', '-f', 'lab.yaml'),
    () => reglab('down'),
  );
  if (up.code !== 0) throw new Error(`reglab up failed: ${up.stderr}\n${up.stdout.slice(-2000)}`);
  const client = await findControlPlane(home);
  if (!client) throw new Error('no control plane runs after reglab up');
  const pid = (JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number }).pid;
  const activity = `/labs/${LAB}/activity`;
  const status = () => client.request<ActivityStatus>('GET', activity);
  const results: RateFigures[] = [];
  // each node's weight is the capacity of its channels, so the lab's is each channel counted at both ends
  const view = await client.request<{ nodes: { channels?: { capacitySat: number }[] }[] }>('GET', `/labs/${LAB}`);
  const totalCapacity = view.nodes.reduce(
    (sum, node) => sum + (node.channels ?? []).reduce((own, channel) => own + channel.capacitySat, 0),
    0,
  );
  for (const rate of rates) {
    // the multiplier that asks `rate` payments a second of the lab (random-activity.ts)
    const started = await client.request<ActivityStatus>('POST', activity, {
      random: { seed: 1, capacity_multiplier: (rate * DEFAULT_EXPECTED_AMOUNT_SAT * WINDOW_SECONDS) / totalCapacity },
      max_in_flight: maxInFlight,
    });
    if (Math.abs(started.plan!.random!.ratePerSecond - rate) > rate * 0.01)
      throw new Error(`asked ${rate}/s, the activity runs at ${started.plan!.random!.ratePerSecond}/s`);
    await sleep(warmupSeconds * 1000);
    const before = await status();
    const cpuBefore = ownCpuMs(pid);
    const windowStart = new Date().toISOString();
    const t0 = Date.now();
    await sleep(seconds * 1000);
    const after = await status();
    const elapsed = (Date.now() - t0) / 1000;
    const cpuPct = ((ownCpuMs(pid) - cpuBefore) / (elapsed * 1000)) * 100;
    await client.request('DELETE', activity);
    await waitFor(async () => (await status()).inFlight === 0, { timeoutMs: 150_000, what: 'payments to end' });
    const { payments } = await client.request<{ payments: PaymentRecord[] }>('GET', `${activity}/payments`);
    const windowEnd = new Date(t0 + elapsed * 1000).toISOString();
    const inWindow = payments.filter((record) => record.time >= windowStart && record.time < windowEnd);
    const latencies = inWindow
      .filter((record) => record.outcome === 'succeeded')
      .map((record) => record.latencyMs)
      .sort((a, b) => a - b);
    const failuresByReason: Record<string, number> = {};
    for (const [reason, count] of Object.entries(after.failuresByReason))
      failuresByReason[reason] = count - (before.failuresByReason[reason] ?? 0);
    const figures: RateFigures = {
      askedPerSecond: rate,
      succeededPerSecond: round((after.succeeded - before.succeeded) / elapsed, 2),
      failedPerSecond: round((after.failed - before.failed) / elapsed, 2),
      latencyMs: { p50: round(percentile(latencies, 50)), p95: round(percentile(latencies, 95)) },
      controlPlaneCpuPct: round(cpuPct, 1),
      failuresByReason: Object.fromEntries(Object.entries(failuresByReason).filter(([, count]) => count > 0)),
    };
    results.push(figures);
    console.log(
      `asked ${rate}/s: ${figures.succeededPerSecond}/s succeeded, ${figures.failedPerSecond}/s failed, latency p50 ${figures.latencyMs.p50} ms p95 ${figures.latencyMs.p95} ms, control plane ${figures.controlPlaneCpuPct} % of one core`,
    );
  }
  // sustained: the payments ended keep up with the pace asked (within 10 %), most of them succeeding
  const sustained = results.filter(
    (figures) =>
      figures.succeededPerSecond + figures.failedPerSecond >= figures.askedPerSecond * 0.9 &&
      figures.succeededPerSecond >= (figures.succeededPerSecond + figures.failedPerSecond) * 0.5,
  );
  const best = sustained.at(-1);
  console.log(
    best
      ? `sustained: ${best.succeededPerSecond} payments a second succeeded (asked ${best.askedPerSecond}/s)`
      : 'no rate asked was sustained',
  );
  bench.record({ sustainedSucceededPerSecond: best?.succeededPerSecond ?? 0, rates: results });
} finally {
  await cleanup.run();
}
