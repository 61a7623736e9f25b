// What watching a lab costs at idle: CPU of the control plane and of the lab's processes over a
// window with the supervisor running, then over the same window with it stopped.
//   npm run bench:supervisor    (BENCH_SECONDS: each window, default 60)
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { sleep } from '../lib/wait.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane } from '../test/support/control-plane.js';

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

const cp = await startTestControlPlane();
try {
  await bringUpLab(cp, defaultLabYaml(LAB), LAB);
  const pids = Object.values(cp.plane.manager.get(LAB).services).flatMap((service) => (service.handle?.runtime === 'process' ? [service.handle.pid] : []));
  const measure = async () => {
    const plane = process.cpuUsage();
    const lab = pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0);
    await sleep(seconds * 1000);
    const planeUsed = process.cpuUsage(plane);
    return { plane: (planeUsed.user + planeUsed.system) / 1e6 / seconds, lab: (pids.reduce((sum, pid) => sum + cpuSecondsOf(pid), 0) - lab) / seconds };
  };
  const percent = (share: number) => `${(share * 100).toFixed(2)} % of one core`;
  await sleep(10_000); // the lab settles after its bring-up
  console.log(`default lab (${pids.length} services), ${seconds} s windows, load ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
  const watched = await measure();
  await cp.plane.manager.supervisor(LAB).stop();
  const unwatched = await measure();
  console.log(`supervisor running: control plane ${percent(watched.plane)}, lab processes ${percent(watched.lab)}`);
  console.log(`supervisor stopped: control plane ${percent(unwatched.plane)}, lab processes ${percent(unwatched.lab)}`);
  console.log(`the supervisor's cost: ${percent(watched.plane - unwatched.plane)} in the control plane, ${percent(watched.lab - unwatched.lab)} in the probed services`);
} finally {
  await cp.stop();
}
