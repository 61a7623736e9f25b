// npm run bench:snapshot [-- --runtime docker] [-- --file lab.yaml] [-- --runs N] [-- --cli]
// Through a control plane of its own (a temp state folder): brings the lab of lab.yaml up, saves it
// as a snapshot, resets it N times, then takes it down and brings it up from the snapshot 2N times.
// The ups alternate: after the lab was taken down keeping its volumes (`reglab down`), and after it
// was taken down with them (`--volumes`), N of each. Prints each operation's time (as the API
// answers it) and its phases. With --cli, then stops that control plane and runs `reglab up
// --from-snapshot` 2N times as a user does after `reglab down`: the CLI starts a control plane,
// brings the lab up and prints it; timed from the command's start to its exit, each followed by
// `reglab down`, with `--volumes` every other time.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../control-plane/src/daemon.js';
import { projectRoot } from '../lib/project-root.js';
import { waitFor } from '../lib/wait.js';
import { benchRun, round } from './results.js';

const { values } = parseArgs({
  options: {
    runtime: { type: 'string', default: 'process' },
    file: { type: 'string', default: 'lab.yaml' },
    runs: { type: 'string', default: '3' },
    cli: { type: 'boolean', default: false },
  },
});
const LAB = 'snapbench';
const yaml = readFileSync(values.file!, 'utf8')
  .replace(/^name: .*$/m, `name: ${LAB}`)
  .replace(/^runtime: .*$/m, `runtime: ${values.runtime}`);

const bench = benchRun('snapshot', {
  runtime: values.runtime,
  lab: values.file,
  runs: Number(values.runs),
  cli: values.cli,
});
const home = mkdtempSync(join(tmpdir(), 'reglab-bench-snapshot-'));
chmodSync(home, 0o755);
const plane = await startControlPlane({ home });
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${plane.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
};
type Phase = { name: string; ms: number };
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const phases = (list: Phase[]) => list.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ');
const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/**
 * Until the lab is ready, read from the list of labs (status only): the lab's own view, GET
 * /labs/NAME, asks every node for its balances and channels, which would be counted in the time.
 */
async function untilReady(): Promise<void> {
  await waitFor(
    async () => {
      const { status } = (await call('GET', '/labs')).labs.find((lab: { name: string }) => lab.name === LAB) ?? {};
      if (status === 'failed')
        throw Object.assign(new Error(`lab failed: ${(await call('GET', `/labs/${LAB}`)).error}`), { fatal: true });
      return status === 'ready';
    },
    {
      timeoutMs: 300_000,
      intervalMs: 50,
      what: `lab ${LAB} to be ready`,
      stopOn: (error) => (error as { fatal?: boolean }).fatal === true,
    },
  );
}

/** Times `work` (up to a ready lab), then prints its phases, read once the clock has stopped. */
async function timed(what: string, work: () => Promise<void>): Promise<number> {
  const before = load();
  const started = Date.now();
  await work();
  const ms = Date.now() - started;
  const { phases: list } = await call('GET', `/labs/${LAB}`);
  console.log(`${what}: ${seconds(ms)} — ${phases(list)} (load average before ${before})`);
  phasesOf.set(what, list);
  return ms;
}
/** The phases of each timed operation, for the record. */
const phasesOf = new Map<string, Phase[]>();
const phasesS = (what: string) =>
  Object.fromEntries((phasesOf.get(what) ?? []).map((phase) => [phase.name, round(phase.ms / 1000)]));
/** Seconds, rounded as printed: `digits` 2 for the CLI's ups, which it times to the hundredth. */
const inSeconds = (list: number[], digits = 1) => list.map((ms) => round(ms / 1000, digits));
/** The run's figures, recorded once it has completed. */
const figures: Record<string, unknown> = {};

const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

/** Runs the reglab CLI on the bench's state folder; throws with its output when it fails. */
function reglab(...args: string[]): string {
  const run = spawnSync(process.execPath, [join(projectRoot(), 'bin', 'reglab.js'), ...args], {
    env: { ...process.env, REGLAB_HOME: home },
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`reglab ${args.join(' ')} exited ${run.status}:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

/**
 * How the lab is taken down before an up from the snapshot: `reglab down` keeps its volumes (docker),
 * which the up writes the snapshot over; with `--volumes` they are removed, and the up makes new ones.
 * Ups alternate between the two, each timed after the kind of down it follows.
 */
const DOWNS = [
  { label: 'after down', volumes: false },
  { label: 'after down --volumes', volumes: true },
] as const;
type Down = (typeof DOWNS)[number];
const downs = () => Array.from({ length: Number(values.runs) }, () => DOWNS).flat();
const medians = (ups: Map<Down, number[]>, unit: (ms: number) => string) =>
  [...ups]
    .map(
      ([down, list]) =>
        `${down.label} ${unit(median(list))}${list.length > 1 ? ` (${list.map(unit).join(', ')})` : ''}`,
    )
    .join('; ');

/**
 * `reglab up --from-snapshot` after `reglab down` and after `reglab down --volumes`, N times each: each starts a
 * control plane of its own.
 */
function cliUps(): Map<Down, number[]> {
  const ups = new Map<Down, number[]>(DOWNS.map((down) => [down, []]));
  let previous: Down = DOWNS[1];
  for (const down of downs()) {
    const before = load();
    const started = performance.now();
    const output = reglab('up', '--from-snapshot', 'bench');
    const ms = performance.now() - started;
    ups.get(previous)!.push(ms);
    console.log(
      `CLI up from snapshot ${previous.label}: ${(ms / 1000).toFixed(2)} s (the lab ${output.match(/ready in [\d.]+s/)?.[0] ?? 'ready'} after the control plane answered; load average before ${before})`,
    );
    reglab('down', ...(down.volumes ? ['--volumes'] : []));
    previous = down;
  }
  return ups;
}

let cliRunning = false;
try {
  console.log(`lab ${values.file} on the ${values.runtime} runtime`);
  const broughtUp = await timed('bring-up', async () => {
    await call('POST', '/labs', { yaml });
    return untilReady();
  });
  figures.bringUpS = round(broughtUp / 1000);
  const saved = await timed('snapshot save', async () => {
    const snapshot = await call('POST', `/labs/${LAB}/snapshots`, { name: 'bench' });
    console.log(`  snapshot: ${(snapshot.bytes / 2 ** 20).toFixed(0)} MiB of data, height ${snapshot.height}`);
    Object.assign(figures, { snapshotMiB: Math.round(snapshot.bytes / 2 ** 20), height: snapshot.height });
  });
  Object.assign(figures, { saveS: round(saved / 1000), savePhasesS: phasesS('snapshot save') });
  const resets: number[] = [];
  for (let run = 1; run <= Number(values.runs); run++) {
    resets.push(
      await timed(`reset ${run}`, async () => {
        await call('POST', `/labs/${LAB}/reset`);
      }),
    );
  }
  const ups = new Map<Down, number[]>(DOWNS.map((down) => [down, []]));
  for (const down of downs()) {
    await call('DELETE', `/labs/${LAB}?volumes=${down.volumes}`);
    ups.get(down)!.push(
      await timed(`up from snapshot ${down.label}`, async () => {
        await call('POST', '/snapshots/bench/up');
        return untilReady();
      }),
    );
  }
  console.log(
    `save ${seconds(saved)}; reset median ${seconds(median(resets))}; up from the snapshot median: ${medians(ups, seconds)} (load average now ${load()})`,
  );
  Object.assign(figures, {
    resetS: inSeconds(resets),
    upAfterDownS: inSeconds(ups.get(DOWNS[0])!),
    upAfterDownVolumesS: inSeconds(ups.get(DOWNS[1])!),
  });
  if (values.cli) {
    await call('DELETE', `/labs/${LAB}?volumes=true`);
    await plane.stop();
    cliRunning = true;
    const cli = cliUps();
    const all = [...cli.values()].flat();
    Object.assign(figures, {
      cliUpAfterDownS: inSeconds(cli.get(DOWNS[0])!, 2),
      cliUpAfterDownVolumesS: inSeconds(cli.get(DOWNS[1])!, 2),
    });
    console.log(
      `through the CLI (it starts the control plane): up from the snapshot median: ${medians(cli, (ms) => `${(ms / 1000).toFixed(2)} s`)}; ${all.filter((ms) => ms < 5000).length} of ${all.length} under 5 s (load average now ${load()})`,
    );
  }
} finally {
  if (cliRunning) {
    try {
      reglab('down', '--volumes');
    } catch {
      // no lab was up
    }
  } else {
    await call('DELETE', `/labs/${LAB}?volumes=true`).catch(() => undefined);
    await plane.stop();
  }
  rmSync(home, { recursive: true, force: true });
}
bench.record(figures);
