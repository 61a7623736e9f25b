// What watching a lab costs at idle: CPU of the control plane and of the lab's processes over a
// window with the supervisor running, then over the same window with it stopped; and how fast it
// sees a service killed with SIGKILL and has it serving again.
//   npm run bench:supervisor    (BENCH_SECONDS: each window, default 60)
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { sleep, waitFor } from '../lib/wait.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane } from '../test/support/control-plane.js';
import { benchRun, round } from './results.js';

const LAB = 'bench-sup';
const seconds = Number(process.env.BENCH_SECONDS ?? 60);
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process has used, from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Kills the wallet server; times until the lab shows it down, and until it answers /health again. */
async function killAndRecover(): Promise<{ seenMs: number; servingMs: number }> {
  const service = cp.plane.manager.get(LAB).services['wallet-server'];
  if (service.handle?.runtime !== 'process') throw new Error('the wallet server runs no process');
  const killedAt = Date.now();
  process.kill(service.handle.pid, 'SIGKILL');
  const status = async () =>
    (await cp.call('GET', `/labs/${LAB}`)).body.services.find((s: { name: string }) => s.name === 'wallet-server')
      .status as string;
  const seenAt = await waitFor(async () => (await status()) !== 'ready' && Date.now(), {
    timeoutMs: 30_000,
    intervalMs: 20,
    what: 'the wallet server shown down',
  });
  const url = service.info.url;
  const servingAt = await waitFor(
    async () =>
      (await fetch(`${url}/health`).then(
        (r) => r.ok,
        () => false,
      )) && Date.now(),
    { timeoutMs: 60_000, intervalMs: 20, what: 'the wallet server serving again' },
  );
  await waitFor(async () => (await status()) === 'ready', { timeoutMs: 30_000, what: 'the wallet server ready again' });
  return { seenMs: seenAt - killedAt, servingMs: servingAt - killedAt };
}

const bench = benchRun('supervisor', { seconds });
const cp = await startTestControlPlane();
try {
  await bringUpLab(cp, defaultLabYaml(LAB), LAB);
  // asked again for each window: the wallet server killed between them runs as another process
  const processes = () =>
    Object.entries(cp.plane.manager.get(LAB).services).flatMap(([name, service]) =>
      service.handle?.runtime === 'process' ? [{ name, pid: service.handle.pid }] : [],
    );
  const measure = async () => {
    const services = processes();
    const plane = process.cpuUsage();
    const before = services.map(({ pid }) => cpuSecondsOf(pid));
    await sleep(seconds * 1000);
    const planeUsed = process.cpuUsage(plane);
    const byService = services.map(({ name, pid }, i) => ({ name, share: (cpuSecondsOf(pid) - before[i]!) / seconds }));
    return {
      plane: (planeUsed.user + planeUsed.system) / 1e6 / seconds,
      lab: byService.reduce((sum, { share }) => sum + share, 0),
      byService,
    };
  };
  const percent = (share: number) => `${(share * 100).toFixed(2)} % of one core`;
  await sleep(10_000); // the lab settles after its bring-up
  console.log(
    `default lab (${processes().length} services), ${seconds} s windows, load ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  );
  const watched = await measure();
  const recovery = await killAndRecover();
  await cp.plane.manager.supervisor(LAB).stop();
  const unwatched = await measure();
  console.log(`supervisor running: control plane ${percent(watched.plane)}, lab processes ${percent(watched.lab)}`);
  console.log(`supervisor stopped: control plane ${percent(unwatched.plane)}, lab processes ${percent(unwatched.lab)}`);
  console.log(
    `the supervisor's cost: ${percent(watched.plane - unwatched.plane)} in the control plane, ${percent(watched.lab - unwatched.lab)} in the probed services`,
  );
  console.log(
    `each service, supervisor stopped: ${unwatched.byService.map(({ name, share }) => `${name} ${(share * 100).toFixed(2)} %`).join(', ')}`,
  );
  console.log(
    `wallet server killed with SIGKILL: shown not ready after ${recovery.seenMs} ms, serving again after ${recovery.servingMs} ms`,
  );
  const pct = (share: number) => round(share * 100, 2);
  bench.record({
    controlPlanePct: { supervisorRunning: pct(watched.plane), supervisorStopped: pct(unwatched.plane) },
    labProcessesPct: { supervisorRunning: pct(watched.lab), supervisorStopped: pct(unwatched.lab) },
    supervisorCostPct: {
      controlPlane: pct(watched.plane - unwatched.plane),
      services: pct(watched.lab - unwatched.lab),
    },
    byServiceStoppedPct: Object.fromEntries(unwatched.byService.map(({ name, share }) => [name, pct(share)])),
    killedWalletServerMs: { shownDown: recovery.seenMs, servingAgain: recovery.servingMs },
  });
} finally {
  await cp.stop();
}
