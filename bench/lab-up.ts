// npm run bench:lab-up [-- --runtime docker] [-- --file lab.yaml] [-- --runs N]
// Brings the lab of lab.yaml up (default: the repository's default lab) in a temp folder, prints the
// time to ready and of each phase, tears it down, and repeats.
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { bringUp, newLabState } from '../control-plane/src/lab/bring-up.js';
import { tearDown } from '../control-plane/src/lab/tear-down.js';
import { runtimeOptionsFor } from '../control-plane/src/runtimes/select.js';
import { parseLabSpec } from '../control-plane/src/spec/parse.js';

const { values } = parseArgs({ options: { runtime: { type: 'string' }, file: { type: 'string', default: 'lab.yaml' }, runs: { type: 'string', default: '3' } } });
const text = readFileSync(values.file!, 'utf8');
const parsed = parseLabSpec(text, values.file);
const spec = { ...parsed, runtime: (values.runtime ?? parsed.runtime) as 'process' | 'docker' };
const runtimeOptions = await runtimeOptionsFor(spec.runtime);
const totals: number[] = [];
console.log(`lab ${spec.name} on the ${spec.runtime} runtime: ${spec.nodes.length} nodes, ${spec.channels.length} channels, services: ${Object.keys(spec.services).join(', ') || 'none'}`);
for (let run = 1; run <= Number(values.runs); run++) {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-bench-'));
  chmodSync(dir, 0o755);
  const lab = newLabState(spec, text, join(dir, spec.name));
  const started = Date.now();
  try {
    const session = await bringUp(lab, { runtimeOptions, onEvent: () => undefined, persist: async () => undefined });
    const total = Date.now() - started;
    totals.push(total);
    console.log(`run ${run}: ready in ${(total / 1000).toFixed(1)} s — ${lab.phases.map((phase) => `${phase.name} ${(phase.ms / 1000).toFixed(1)} s`).join(', ')}`);
    session.close();
  } finally {
    await tearDown(lab, runtimeOptions.runtime, { volumes: true });
    rmSync(dir, { recursive: true, force: true });
  }
}
totals.sort((a, b) => a - b);
console.log(`time to a ready lab: median ${(totals[Math.floor(totals.length / 2)] / 1000).toFixed(1)} s, best ${(totals[0] / 1000).toFixed(1)} s, worst ${(totals.at(-1)! / 1000).toFixed(1)} s over ${totals.length} runs`);
