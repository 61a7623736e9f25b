// npm run bench:memory [-- --file lab.yaml] [-- --runs N]
// The resident memory of a lab as a user gets it: `reglab up` through the CLI in a fresh REGLAB_HOME
// (so the control plane, its queue Redis and the lab are what a user runs), every lab service
// exercised (OpenAPI and docs pages, a sign-in and an invoice, chain reads, an Electrum session, a
// block mined through the control plane's queues), then
// RSS and PSS (/proc) of each service's process tree, of the control plane and its own children, and of its keeper,
// then `reglab down`. The lab's figure is the sum over all of them.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { DaemonInfo } from '../control-plane/src/home.js';
import type { ControlPlaneData } from '../control-plane/src/store.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../test/wallet-server/support.js';
import { mib, pssBytes, rssBytes, treePids } from './proc.js';
import { benchRun, round } from './results.js';

const { values } = parseArgs({
  options: { file: { type: 'string', default: 'lab.yaml' }, runs: { type: 'string', default: '1' } },
});
const cli = resolve('bin/reglab.js');

async function ok(url: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(url, init);
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  ok(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function exerciseWalletServer(base: string): Promise<void> {
  const key = newKey();
  await postJson(`${base}/auth/enroll`, { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS });
  const { nonce } = (await (await ok(`${base}/auth/challenge?pubkey=${key.pubkey}`)).json()) as { nonce: string };
  const { access_token: token } = (await (
    await postJson(`${base}/auth/verify`, {
      pubkey: key.pubkey,
      nonce,
      signature: await signNonce(key.secretKey, nonce),
    })
  ).json()) as { access_token: string };
  const { id } = (await (
    await postJson(`${base}/wallets`, { name: 'memory' }, { authorization: `Bearer ${token}` })
  ).json()) as { id: string };
  await postJson(
    `${base}/payments/invoices`,
    { amount_msat: 1000 },
    { authorization: `Bearer ${token}`, 'x-service-wallet-key': id },
  );
}

/** One Electrum session: version, tip header subscription. */
function exerciseIndexer(port: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`${JSON.stringify({ id: 1, method: 'server.version', params: ['bench', '1.4'] })}\n`);
      socket.write(`${JSON.stringify({ id: 2, method: 'blockchain.headers.subscribe', params: [] })}\n`);
    });
    let answers = '';
    socket.on('data', (chunk) => {
      answers += chunk.toString();
      if (answers.split('\n').length > 2) {
        socket.end();
        resolvePromise();
      }
    });
    socket.on('error', reject);
  });
}

type Services = ControlPlaneData['labs'][string]['services'];

async function exercise(services: Services): Promise<void> {
  const port = (service: string, name: string) => services[service]?.hostPorts?.[name];
  const http = (service: string) => `http://127.0.0.1:${port(service, 'http')}`;
  const present = (service: string) => port(service, 'http') !== undefined;
  for (const service of ['wallet-server', 'faucet', 'chain-adapter'].filter(present)) {
    for (const path of ['/openapi.json', '/docs']) await ok(`${http(service)}${path}`);
  }
  if (present('wallet-server')) await exerciseWalletServer(http('wallet-server'));
  if (present('faucet')) await ok(`${http('faucet')}/api/status`);
  if (present('chain-adapter')) {
    await ok(`${http('chain-adapter')}/api/blocks/tip/height`);
    await ok(`${http('chain-adapter')}/api/v1/fees/recommended`);
  }
  const electrum = port('indexer', 'electrum');
  if (electrum !== undefined) await exerciseIndexer(electrum);
}

interface Row {
  what: string;
  rss: number;
  pss: number;
  processes: number;
}

function measure(pids: number[], what: string): Row {
  return {
    what,
    rss: pids.reduce((t, p) => t + rssBytes(p), 0),
    pss: pids.reduce((t, p) => t + pssBytes(p), 0),
    processes: pids.length,
  };
}

const toMiB = (bytes: number) => Math.round(bytes / 2 ** 20);

/** One run's figures for the record: the sums, and each service's and the control plane's RSS (PSS). */
function figuresOf(upMs: number, rows: Row[], all: Row, services: Row): Record<string, unknown> {
  return {
    upS: round(upMs / 1000),
    allRssMiB: toMiB(all.rss),
    allPssMiB: toMiB(all.pss),
    processes: all.processes,
    labServicesRssMiB: toMiB(services.rss),
    labServicesPssMiB: toMiB(services.pss),
    byProcessRssMiB: Object.fromEntries(rows.map((row) => [row.what, toMiB(row.rss)])),
    byProcessPssMiB: Object.fromEntries(rows.map((row) => [row.what, toMiB(row.pss)])),
  };
}

async function run(index: number): Promise<Record<string, unknown>> {
  const home = mkdtempSync(join(tmpdir(), 'reglab-memory-'));
  chmodSync(home, 0o755); // PostgreSQL runs as its own user and must reach its folder inside
  const reglab = (...args: string[]) =>
    execFileSync(process.execPath, [cli, ...args], {
      env: { ...process.env, REGLAB_HOME: home },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  try {
    const started = Date.now();
    reglab('up', '-f', values.file!);
    const upMs = Date.now() - started;
    console.log(`run ${index}: ${values.file} up through the CLI in ${(upMs / 1000).toFixed(1)} s`);
    const state = JSON.parse(readFileSync(join(home, 'state.json'), 'utf8')) as ControlPlaneData;
    const [lab] = Object.values(state.labs);
    if (!lab) throw new Error('no lab in the state file');
    await exercise(lab.services);
    // a block mined through the control plane, as `reglab mine` does: its queues and their Redis start with a job
    const daemon = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as DaemonInfo;
    await postJson(`${daemon.url}/labs/${lab.name}/mine?wait=true`, { blocks: 1 });
    // start-up garbage collected and timers settled before reading
    await new Promise((r) => setTimeout(r, 5_000));
    const controlPlane = daemon.pid;
    const rows: Row[] = [];
    const counted = new Set<number>();
    for (const [name, service] of Object.entries(lab.services)) {
      if (service.handle?.runtime !== 'process') continue;
      const pids = treePids(service.handle.pid);
      pids.forEach((p) => counted.add(p));
      rows.push(measure(pids, name));
    }
    rows.sort((a, b) => b.rss - a.rss);
    const ownChildren = treePids(controlPlane).filter((p) => p !== controlPlane && !counted.has(p));
    const keeper = Number(readFileSync(join(home, 'keeper.pid'), 'utf8'));
    const control = [
      measure([controlPlane], 'control plane'),
      measure(ownChildren, "control plane's children (its queue Redis)"),
      measure([keeper], "control plane's keeper (sh)"),
    ];
    const line = (row: Row) =>
      `  ${row.what.padEnd(44)} ${mib(row.rss).padStart(8)} RSS ${mib(row.pss).padStart(8)} PSS  ${row.processes} process${row.processes === 1 ? '' : 'es'}`;
    for (const row of [...rows, ...control]) console.log(line(row));
    const sum = (list: Row[], what: string): Row => ({
      what,
      rss: list.reduce((t, r) => t + r.rss, 0),
      pss: list.reduce((t, r) => t + r.pss, 0),
      processes: list.reduce((t, r) => t + r.processes, 0),
    });
    const services = sum(rows, 'the lab services');
    const all = sum([...rows, ...control], 'all, with the control plane');
    console.log(line(services));
    console.log(line(all));
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    return figuresOf(upMs, [...rows, ...control], all, services);
  } finally {
    try {
      reglab('down');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
}

const bench = benchRun('memory', { lab: values.file, runs: Number(values.runs) });
const runs: Record<string, unknown>[] = [];
for (let i = 1; i <= Number(values.runs); i += 1) runs.push(await run(i));
bench.record({
  allRssMiB: runs.map((figures) => figures.allRssMiB),
  allPssMiB: runs.map((figures) => figures.allPssMiB),
  runs,
});
