// npm run bench:scenarios [-- --rounds 5]
// The scenario library (scenarios/*.yaml) run round after round on one default lab (lab.yaml),
// after traffic has used it: payments both ways, keysends, a force close swept after maturity. A
// lab that other tests had used failed scenarios/channel-close.yaml (a force close never swept once
// lnd's fee estimate rose, issue 44); each round must pass on the lab the rounds before it used.
// Prints each scenario's outcome and time, round by round; exits 1 when any failed.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ControlPlaneClient } from '../control-plane/src/cli/client.js';
import { startControlPlane } from '../control-plane/src/daemon.js';
import { waitFor } from '../lib/wait.js';
import { loadScenarioFile } from '../scenarios/src/load/load-scenario.js';
import type { StepReport } from '../scenarios/src/report/types.js';
import { runScenario } from '../scenarios/src/run/runner.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const LAB = 'library';
const LIBRARY = readdirSync('scenarios')
  .filter((name) => name.endsWith('.yaml'))
  .sort();

const home = mkdtempSync(join(tmpdir(), 'reglab-bench-scenarios-'));
chmodSync(home, 0o755);
const plane = await startControlPlane({ home });
const api = new ControlPlaneClient(plane.url);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A job through the API, waited for; throws with the job's error when it failed. */
async function job(path: string, body: unknown): Promise<Record<string, unknown>> {
  const done = await api.request<{ state: string; error?: string; result?: Record<string, unknown> }>(
    'POST',
    `/labs/${LAB}${path}?wait=true`,
    body,
  );
  if (done.state !== 'completed') throw new Error(`${path} ${JSON.stringify(body)}: ${done.state} ${done.error ?? ''}`);
  return done.result ?? {};
}

type NodeView = { pendingCloses: { fundingTxid: string; blocksUntilSweep?: number }[] };
const node = (name: string) => api.request<NodeView>('GET', `/labs/${LAB}/nodes/${name}`);

/** What a lab used by other tests has been through before the library runs on it. */
async function traffic(): Promise<void> {
  for (let i = 0; i < 10; i++) await job('/payments', { from: 'alice', to: 'carol', amount_sat: 20_000 + i });
  for (let i = 0; i < 5; i++) await job('/payments', { from: 'carol', to: 'alice', amount_sat: 5_000 + i });
  await job('/payments', { from: 'bob', to: 'alice', amount_sat: 3_000, keysend: true });
  const opened = await job('/channels', { from: 'bob', to: 'carol', capacity_sat: 300_000, push_sat: 50_000 });
  const channelId = `${opened.fundingTxid}:${opened.fundingVout}`;
  await job('/channels/close', { node: 'bob', channel_id: channelId, force: true });
  // the close mined a block; the timelock is known once the node has seen its transaction confirmed
  const timelock = await waitFor(
    async () => {
      const close = (await node('bob')).pendingCloses.find((pending) => pending.fundingTxid === opened.fundingTxid);
      if (close?.blocksUntilSweep !== undefined) return close.blocksUntilSweep;
      await job('/mine', { blocks: 1 });
      return undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500, what: "bob's force close to be confirmed" },
  );
  await job('/mine', { blocks: Math.max(1, timelock) });
  await waitFor(
    async () => {
      await job('/mine', { blocks: 1 });
      return !(await node('bob')).pendingCloses.some((close) => close.fundingTxid === opened.fundingTxid);
    },
    { timeoutMs: 120_000, intervalMs: 1_000, what: "bob's force-closed channel to be swept" },
  );
}

const failedSteps = (steps: StepReport[]) =>
  steps.filter((step) => step.status === 'failed').map((step) => `${step.id} ${step.label}: ${step.error}`);

let failures = 0;
try {
  const up = Date.now();
  await api.request('POST', '/labs', {
    yaml: readFileSync('lab.yaml', 'utf8').replace(/^name: default$/m, `name: ${LAB}`),
  });
  await waitFor(
    async () => {
      const lab = await api.request<{ status: string; error?: string }>('GET', `/labs/${LAB}`);
      if (lab.status === 'failed') throw new Error(`the lab failed to come up: ${lab.error}`);
      return lab.status === 'ready';
    },
    { timeoutMs: 300_000, what: 'the lab to be ready', stopOn: (error) => String(error).includes('failed to come up') },
  );
  console.log(`lab up in ${seconds(Date.now() - up)}`);
  const used = Date.now();
  await traffic();
  console.log(`traffic (16 payments, a channel force-closed and swept) in ${seconds(Date.now() - used)}`);
  for (let round = 1; round <= rounds; round++) {
    const started = Date.now();
    let passed = 0;
    for (const file of LIBRARY) {
      const at = Date.now();
      const report = await runScenario(loadScenarioFile(join('scenarios', file)), { api, lab: LAB });
      console.log(
        `round ${round}  ${report.passed ? 'pass' : 'FAIL'}  ${seconds(Date.now() - at).padStart(7)}  ${file}`,
      );
      if (report.passed) passed++;
      else for (const failure of failedSteps(report.steps)) console.log(`    ${failure}`);
    }
    failures += LIBRARY.length - passed;
    console.log(`round ${round}: ${passed}/${LIBRARY.length} passed in ${seconds(Date.now() - started)}`);
  }
} finally {
  await plane.manager.remove(LAB, { volumes: true }).catch(() => undefined);
  await plane.stop();
  rmSync(home, { recursive: true, force: true });
}
console.log(failures === 0 ? `${rounds} rounds: every scenario passed` : `${rounds} rounds: ${failures} failed`);
process.exitCode = failures === 0 ? 0 : 1;
