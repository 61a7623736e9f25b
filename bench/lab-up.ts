// npm run bench:lab-up [-- --runtime docker[,kubernetes]] [-- --copies N] [-- --file lab.yaml | --nodes N] [-- --runs N] [-- --name NAME]
// Brings a lab up in a temp folder — lab.yaml (the default lab), another file, or with --nodes N a
// line of N lnd nodes (n0 -> n1 -> ...) — prints the time to ready, each phase, how long each node
// took from its start to ready, and the lab's resident memory (process runtime: the sum of RSS over
// its processes, PSS beside it, both by service), tears it down, and repeats. With several runtimes
// (`docker,kubernetes`) each is measured in turn in the same run; with --copies N, N labs of the
// file (named NAME-1 ... NAME-N) come up at once and the time is until the last is ready. The
// kubernetes runtime uses $KUBECONFIG (or lab.yaml's kubernetes block) and the images already in
// the cluster (`reglab images load` or `push` first).
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildLabImages } from '../control-plane/src/images/lab.js';
import { bringUp, newLabState } from '../control-plane/src/lab/bring-up.js';
import type { LabEvent } from '../control-plane/src/lab/events.js';
import type { LabState } from '../control-plane/src/lab/state.js';
import { tearDown } from '../control-plane/src/lab/tear-down.js';
import { discoverEngine } from '../control-plane/src/runtimes/docker/engine.js';
import { runtimeOptionsFor } from '../control-plane/src/runtimes/select.js';
import { parseLabSpec } from '../control-plane/src/spec/parse.js';
import type { LabSpec, RuntimeName } from '../control-plane/src/spec/types.js';
import type { Runtime } from '../control-plane/src/runtimes/types.js';
import { lineLabYaml } from './line-lab.js';
import { mib, treePssBytes, treeRssBytes, treeSize } from './proc.js';
import { benchRun, round } from './results.js';

const { values } = parseArgs({
  options: {
    runtime: { type: 'string' },
    copies: { type: 'string', default: '1' },
    file: { type: 'string', default: 'lab.yaml' },
    nodes: { type: 'string' },
    runs: { type: 'string', default: '3' },
    name: { type: 'string' },
  },
});
const copies = Number(values.copies);
if (!Number.isInteger(copies) || copies < 1) throw new Error(`--copies must be a whole number of labs, not ${copies}`);
const [text, file] = values.nodes
  ? [lineLabYaml(Number(values.nodes)), `line of ${values.nodes} nodes`]
  : [readFileSync(values.file!, 'utf8'), values.file!];
// --name: the labs' name instead of the file's (NAME, or NAME-1 ... NAME-N), beside labs of that name already up
const parsed = { ...parseLabSpec(text, file), ...(values.name ? { name: values.name } : {}) };
const runtimes = (values.runtime ?? parsed.runtime).split(',') as RuntimeName[];
const unknown = runtimes.filter((runtime) => !['process', 'docker', 'kubernetes'].includes(runtime));
if (unknown.length > 0)
  throw new Error(`--runtime takes process, docker or kubernetes, comma-separated (not ${unknown})`);

/** The lab's images built (or found up to date) before the timed runs: a build is not a bring-up. */
async function buildImagesFirst(spec: LabSpec): Promise<void> {
  const started = Date.now();
  const { built } = await buildLabImages((await discoverEngine()).docker, spec);
  const rebuilt = built.filter((image) => image.action === 'built').map((image) => image.id);
  console.log(
    `images: ${rebuilt.length > 0 ? `built ${rebuilt.join(', ')}` : 'all up to date'} in ${((Date.now() - started) / 1000).toFixed(1)} s (not counted below)`,
  );
}

/**
 * The resident memory of every process of the lab (a process lab; containers are not counted): RSS
 * summed over the services' process trees, the figure the lab is judged by, and beside it PSS,
 * which counts a page shared by several processes (PostgreSQL's shared buffers, libraries) once.
 */
function labRss(
  lab: LabState,
):
  | { bytes: number; pss: number; processes: number; services: { service: string; rss: number; pss: number }[] }
  | undefined {
  const services = Object.entries(lab.services)
    .flatMap(([service, state]) => (state.handle?.runtime === 'process' ? [{ service, pid: state.handle.pid }] : []))
    .map(({ service, pid }) => ({ service, rss: treeRssBytes(pid), pss: treePssBytes(pid), processes: treeSize(pid) }));
  if (services.length === 0) return undefined;
  const sum = (of: (row: (typeof services)[number]) => number) => services.reduce((total, row) => total + of(row), 0);
  return {
    bytes: sum((row) => row.rss),
    pss: sum((row) => row.pss),
    processes: sum((row) => row.processes),
    services: services.sort((a, b) => b.rss - a.rss),
  };
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const toMiB = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Records, per service, when it was started and when it was ready. */
function readinessClock() {
  const started = new Map<string, number>();
  const ready = new Map<string, number>();
  return {
    onEvent(event: LabEvent) {
      if (event.type !== 'service') return;
      if (event.status === 'starting') started.set(event.service, Date.now());
      if (event.status === 'ready') ready.set(event.service, Date.now());
    },
    /** Seconds from its start to ready, for each node of the lab. */
    nodes: (lab: LabState) =>
      Object.fromEntries(
        lab.spec.nodes.map((node) => [node.name, round((ready.get(node.name)! - started.get(node.name)!) / 1000)]),
      ),
  };
}

/** The labs brought up and not taken down yet: an interrupted bench takes them down before it ends. */
const up = new Set<{ lab: LabState; runtime: Runtime }>();
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`${signal}: taking down ${up.size} lab(s) first`);
    void Promise.allSettled([...up].map((one) => tearDown(one.lab, one.runtime, { volumes: true }))).then(() =>
      process.exit(130),
    );
  });

/** The last lines of each node's log: what a failed bring-up left to read before its labs are taken down. */
async function nodeLogs(lab: LabState, runtime: Runtime): Promise<string> {
  const tails = await Promise.all(
    lab.spec.nodes.map(async (node) => {
      const tail = await runtime
        .logs({ lab, service: node.name }, lab.services[node.name]?.handle, 25)
        .catch((error: unknown) => `(no log: ${(error as Error).message})`);
      return `--- ${lab.name}/${node.name} ---\n${tail.trimEnd()}`;
    }),
  );
  return tails.join('\n');
}

/** The options a run of `runtime` is recorded with. */
const recordedOptions = (runtime: RuntimeName) => ({
  runtime,
  lab: file,
  name: parsed.name,
  runs: Number(values.runs),
  copies,
});

/** The labs of one run: the file's, or its copies, each named NAME-i, on `runtime`. */
function labsOf(runtime: RuntimeName): LabSpec[] {
  const spec = { ...parsed, runtime };
  if (copies === 1) return [spec];
  return Array.from({ length: copies }, (_, index) => ({ ...spec, name: `${spec.name}-${index + 1}` }));
}

async function benchRuntime(runtime: RuntimeName): Promise<void> {
  const specs = labsOf(runtime);
  if (runtime !== 'process') await buildImagesFirst(specs[0]!);
  const bench = benchRun('lab-up', recordedOptions(runtime));
  const totals: number[] = [];
  const runs: Record<string, unknown>[] = [];
  const spec = specs[0]!;
  console.log(
    `${copies > 1 ? `${copies} labs at once, each ` : ''}lab ${parsed.name} on the ${runtime} runtime: ${spec.nodes.length} nodes, ${spec.channels.length} channels, services: ${Object.keys(spec.services).join(', ') || 'none'}`,
  );
  for (let run = 1; run <= Number(values.runs); run++) {
    const dir = mkdtempSync(join(tmpdir(), 'reglab-bench-'));
    chmodSync(dir, 0o755);
    const labs = await Promise.all(
      specs.map(async (copy) => ({
        lab: newLabState(copy, text, join(dir, copy.name)),
        runtimeOptions: await runtimeOptionsFor(copy),
        clock: readinessClock(),
        readyMs: 0,
      })),
    );
    const loadBefore = load();
    const started = Date.now();
    for (const one of labs) up.add({ lab: one.lab, runtime: one.runtimeOptions.runtime });
    try {
      // every bring-up settles before the teardown below, so that none runs on against a torn-down lab
      const outcomes = await Promise.allSettled(
        labs.map(async (one) => {
          const session = await bringUp(one.lab, {
            runtimeOptions: one.runtimeOptions,
            onEvent: one.clock.onEvent,
            persist: async () => undefined,
          });
          one.readyMs = Date.now() - started;
          return session;
        }),
      );
      const sessions = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      const failed = outcomes.find((outcome) => outcome.status === 'rejected');
      if (failed) {
        for (const session of sessions) session.close();
        for (const one of labs)
          if (one.lab.status !== 'ready') console.error(await nodeLogs(one.lab, one.runtimeOptions.runtime));
        throw failed.reason;
      }
      const total = Date.now() - started;
      totals.push(total);
      if (labs.length > 1)
        console.log(
          `run ${run}: all ${labs.length} ready in ${seconds(total)} — ${labs.map((one) => `${one.lab.name} ${seconds(one.readyMs)}`).join(', ')}`,
        );
      for (const { lab, clock, readyMs } of labs) {
        const rss = labRss(lab);
        console.log(
          `${labs.length > 1 ? `  ${lab.name}` : `run ${run}`}: ready in ${seconds(readyMs)} — ${lab.phases.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ')}`,
        );
        const nodes = clock.nodes(lab);
        const kinds = new Map(lab.spec.nodes.map((node) => [node.name, node.kind]));
        console.log(
          `  nodes, from their start to ready: ${Object.entries(nodes)
            .map(([name, s]) => `${name} (${kinds.get(name)}) ${s.toFixed(1)} s`)
            .join(', ')}`,
        );
        if (rss)
          console.log(
            `  RSS ${mib(rss.bytes)} in ${rss.processes} processes (PSS ${mib(rss.pss)}); by service (PSS): ${rss.services.map((row) => `${row.service} ${mib(row.rss)} (${mib(row.pss)})`).join(', ')}`,
          );
        runs.push({
          ...(labs.length > 1 && { lab: lab.name, run }),
          readyS: round(readyMs / 1000),
          phasesS: Object.fromEntries(lab.phases.map((phase) => [phase.name, round(phase.ms / 1000)])),
          nodesReadyS: nodes,
          ...(rss && {
            rssMiB: toMiB(rss.bytes),
            pssMiB: toMiB(rss.pss),
            processes: rss.processes,
            rssByServiceMiB: Object.fromEntries(rss.services.map((row) => [row.service, toMiB(row.rss)])),
          }),
        });
      }
      console.log(`  load average before ${loadBefore}, after ${load()}`);
      for (const session of sessions) session.close();
    } finally {
      await Promise.all(labs.map((one) => tearDown(one.lab, one.runtimeOptions.runtime, { volumes: true })));
      for (const entry of [...up]) if (labs.some((one) => one.lab === entry.lab)) up.delete(entry);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const sorted = [...totals].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `${runtime}: time to ${copies > 1 ? `${copies} ready labs` : 'a ready lab'}: median ${seconds(median)}, best ${seconds(sorted[0]!)}, worst ${seconds(sorted.at(-1)!)} over ${sorted.length} runs`,
  );
  bench.record({ readyS: totals.map((ms) => round(ms / 1000)), medianS: round(median / 1000), runs });
}

// a runtime whose run fails does not keep the others from being measured: its failure is told and recorded
let failures = 0;
for (const runtime of runtimes) {
  try {
    await benchRuntime(runtime);
  } catch (error) {
    failures++;
    const message = (error as Error).message ?? String(error);
    console.error(`${runtime}: the run failed: ${message}`);
    benchRun('lab-up', recordedOptions(runtime)).record({
      failed: message.split('\n')[0],
    });
  }
}
if (failures > 0) process.exitCode = 1;
