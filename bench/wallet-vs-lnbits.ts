// npm run bench:wallet -- --vs lnbits
// reglab's wallet server and LNbits side by side on one lab: the same lnd node (alice), the lab's
// Postgres (LNbits in a database of its own), the same load. One operation = the payee wallet
// creates an invoice (on lnd) and another wallet of the same server pays it (settled internally).
// Wallets are funded honestly: bob pays their invoices over a channel bob -> alice.
// BENCH_CONCURRENCY clients (16), BENCH_WARMUP_SECONDS (3) then BENCH_SECONDS (15) per figure,
// BENCH_ROUNDS rounds (3) alternating the servers, so a change in the machine's load falls on both;
// the server not measured is stopped meanwhile (see Side.idle).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pay } from 'ln-service';
import { startService } from '../control-plane/src/lab/start-service.js';
import { stopServices } from '../control-plane/src/lab/tear-down.js';
import { freePort } from '../control-plane/src/util/ports.js';
import { waitFor } from '../lib/wait.js';
import { startRegtest, type Regtest } from '../test/support/regtest.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../test/wallet-server/support.js';
import {
  createLnbitsWallet,
  installLnbits,
  lnbitsBalanceMsat,
  lnbitsInvoice,
  LNBITS_VERSION,
  startLnbits,
  type LnbitsWallet,
  type RunningLnbits,
} from './lnbits.js';
import { Cleanup } from './cleanup.js';
import { figures, report, runLoad, type BenchResult, type Figures, type Operation } from './load.js';
import { mib, ownCpuMs, treeCpuMs, treeRssBytes } from './proc.js';
import { benchRun, round } from './results.js';

const clients = Number(process.env.BENCH_CONCURRENCY ?? 16);
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const AMOUNT_SAT = 1;
/** Each payer's funding: far more than a round can spend at AMOUNT_SAT an operation. */
const FUNDING_SAT = 20_000;

/** A server under test, ready for the load. */
interface Side {
  name: string;
  port: number;
  /** The server's process, for its CPU time (it may change between windows). */
  pid(): number;
  operations: Operation[];
  /** What the payee wallets hold: AMOUNT_SAT per settled operation. */
  payeesMsat(): Promise<bigint>;
  /**
   * Stops the server while the other one is measured, and starts it again before its own window.
   * An idle server still follows lnd's invoice stream: for each invoice the other server makes, lnd
   * decodes it (a signature recovery) and sends it on, and the idle server reads it: CPU that would
   * be counted against the server measured.
   */
  idle: { stop(): Promise<void>; start(): Promise<void> };
}

async function json<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Pays each invoice from bob, a few at a time. */
async function payFromBob(regtest: Regtest, invoices: string[]): Promise<void> {
  for (let i = 0; i < invoices.length; i += 8) {
    await Promise.all(invoices.slice(i, i + 8).map((request) => pay({ lnd: regtest.lnd('bob'), request })));
  }
}

async function reglabSide(regtest: Regtest): Promise<Side> {
  const url = `http://${regtest.address('wallet-server', 'http')}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const key = newKey();
  await json(await post('/auth/enroll', { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS }), 'enroll');
  const { nonce } = await json<{ nonce: string }>(
    await fetch(`${url}/auth/challenge?pubkey=${key.pubkey}`),
    'challenge',
  );
  const { access_token: token } = await json<{ access_token: string }>(
    await post('/auth/verify', { pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) }),
    'sign-in',
  );
  const auth = { authorization: `Bearer ${token}` };
  const newWallet = async (name: string) =>
    (await json<{ id: string }>(await post('/wallets', { name }, auth), 'POST /wallets')).id;
  const pairs: Array<{ payer: string; payee: string }> = [];
  for (let i = 0; i < clients; i++)
    pairs.push({ payer: await newWallet(`payer-${i}`), payee: await newWallet(`payee-${i}`) });

  const invoiceOf = async (wallet: string, amountMsat: number) =>
    (
      await json<{ payment_request: string }>(
        await post('/payments/invoices', { amount_msat: amountMsat }, { ...auth, 'x-service-wallet-key': wallet }),
        'POST /payments/invoices',
      )
    ).payment_request;
  const balanceOf = async (wallet: string) =>
    BigInt(
      (
        await json<{ balance_msat: string }>(
          await fetch(`${url}/wallets/${wallet}`, { headers: auth }),
          'GET /wallets/{id}',
        )
      ).balance_msat,
    );
  await payFromBob(regtest, await Promise.all(pairs.map((p) => invoiceOf(p.payer, FUNDING_SAT * 1000))));
  await waitFor(
    async () =>
      (await Promise.all(pairs.map((p) => balanceOf(p.payer)))).every((b) => b === BigInt(FUNDING_SAT * 1000)),
    { timeoutMs: 60_000, what: 'the reglab payer wallets to be credited' },
  );

  return {
    name: 'reglab wallet server',
    port: Number(new URL(url).port),
    pid: () => handlePid(regtest, 'wallet-server'),
    operations: pairs.map(({ payer, payee }) => [
      {
        path: '/payments/invoices',
        headers: { ...auth, 'x-service-wallet-key': payee },
        body: { amount_msat: AMOUNT_SAT * 1000 },
      },
      {
        path: '/payments/pay',
        headers: { ...auth, 'x-service-wallet-key': payer },
        body: {},
        from: { key: 'invoice', field: 'payment_request' },
        expect: { status: 'succeeded' },
      },
    ]),
    payeesMsat: async () => (await Promise.all(pairs.map((p) => balanceOf(p.payee)))).reduce((a, b) => a + b, 0n),
    idle: {
      stop: () =>
        stopServices(regtest.lab, regtest.session.runtime, {
          except: Object.keys(regtest.lab.services).filter((name) => name !== 'wallet-server'),
        }),
      start: async () => {
        if (regtest.lab.services['wallet-server']!.status !== 'ready') {
          await startService(regtest.session, 'wallet-server', {
            onEvent: () => undefined,
            persist: async () => undefined,
          });
        }
      },
    },
  };
}

async function lnbitsSide(regtest: Regtest, cleanup: Cleanup, dir: string): Promise<Side> {
  const venv = installLnbits();
  const postgresUrl = `postgres://postgres@${regtest.address('postgres', 'sql')}`;
  const admin = new pg.Client({ connectionString: `${postgresUrl}/postgres` });
  await admin.connect();
  await admin.query('create database lnbits');
  await admin.end();
  const credentials = regtest.lndCredentials('alice');
  const certPath = join(dir, 'alice-tls.cert');
  writeFileSync(certPath, Buffer.from(credentials.certBase64, 'base64'));
  const port = await freePort();
  const settings = {
    port,
    dataDir: join(dir, 'lnbits-data'),
    databaseUrl: `${postgresUrl}/lnbits`,
    lndRestUrl: `https://${regtest.address('alice', 'rest')}`,
    lndTlsCertPath: certPath,
    lndMacaroonHex: credentials.macaroonHex,
    logFile: join(dir, 'lnbits.log'),
  };
  let lnbits: RunningLnbits | null = null;
  const start = async () => {
    lnbits = await cleanup.acquire(
      () => startLnbits(venv, settings),
      (started) => started.stop(),
    );
  };
  await start();
  const url = lnbits!.url;

  const pairs: Array<{ payer: LnbitsWallet; payee: LnbitsWallet }> = [];
  for (let i = 0; i < clients; i++) {
    pairs.push({
      payer: await createLnbitsWallet(url, `payer-${i}`),
      payee: await createLnbitsWallet(url, `payee-${i}`),
    });
  }
  // New LNbits wallets get currency USD, and every payment then waits on fiat-rate look-ups that
  // cannot succeed offline; NULL is what an LNbits whose rate look-ups succeed from cache does.
  const db = new pg.Client({ connectionString: `${postgresUrl}/lnbits` });
  await db.connect();
  await db.query('update wallets set currency = null');
  await db.end();

  await payFromBob(regtest, await Promise.all(pairs.map((p) => lnbitsInvoice(url, p.payer, FUNDING_SAT))));
  await waitFor(
    async () =>
      (await Promise.all(pairs.map((p) => lnbitsBalanceMsat(url, p.payer)))).every(
        (b) => b === BigInt(FUNDING_SAT * 1000),
      ),
    { timeoutMs: 60_000, what: 'the LNbits payer wallets to be credited' },
  );

  return {
    name: `LNbits ${LNBITS_VERSION}`,
    port,
    pid: () => lnbits!.pid,
    operations: pairs.map(({ payer, payee }) => [
      {
        path: '/api/v1/payments',
        headers: { 'x-api-key': payee.invoiceKey },
        body: { out: false, amount: AMOUNT_SAT, memo: '' },
      },
      {
        path: '/api/v1/payments',
        headers: { 'x-api-key': payer.adminKey },
        body: { out: true },
        from: { key: 'bolt11', field: 'bolt11' },
        expect: { status: 'success' },
      },
    ]),
    payeesMsat: async () =>
      (await Promise.all(pairs.map((p) => lnbitsBalanceMsat(url, p.payee)))).reduce((a, b) => a + b, 0n),
    idle: {
      stop: async () => {
        await lnbits?.stop();
        lnbits = null;
      },
      start: async () => {
        if (!lnbits) await start();
      },
    },
  };
}

function handlePid(regtest: Regtest, service: string): number {
  const handle = regtest.lab.services[service]?.handle;
  if (handle?.runtime !== 'process') throw new Error(`${service} is not a local process`);
  return handle.pid;
}

interface Measured {
  result: BenchResult;
  /** CPU time each process used during the measured window. */
  cpuMs: Map<string, number>;
}

/** A process whose CPU time counts besides the server's own. */
interface Watched {
  name: string;
  cpuMs(): number;
}

const processTree = (name: string, pid: number): Watched => ({ name, cpuMs: () => treeCpuMs(pid) });

/** Whether every window's payees held what the load generator counted, for the record. */
let payeesMatched = true;

/** Warm-up, then the measured window; checks the payees received what the load generator counted. */
async function measure(side: Side, processes: Watched[], counted: { ops: number }): Promise<Measured> {
  const watched = [processTree('server', side.pid()), ...processes];
  const warmup = await runLoad(`${side.name} (warm-up)`, { port: side.port }, side.operations, warmupSeconds);
  const cpuBefore = watched.map((p) => p.cpuMs());
  const result = await runLoad(side.name, { port: side.port }, side.operations, seconds);
  const cpuMs = new Map(watched.map((p, i) => [p.name, p.cpuMs() - cpuBefore[i]!]));
  report(result);
  counted.ops += warmup.ops + result.ops;
  const received = await side.payeesMsat();
  const expected = BigInt(counted.ops * AMOUNT_SAT * 1000);
  if (received !== expected) payeesMatched = false;
  console.log(
    `  payees hold ${received / 1000n} sat for ${counted.ops} operations counted so far${received === expected ? '' : ' — MISMATCH'}; ` +
      `server RSS ${mib(treeRssBytes(side.pid()))}; load average ${loadavg()[0]!.toFixed(2)}`,
  );
  return { result, cpuMs };
}

/** CPU ms per operation by process, over all the windows of one server, and their total. */
function cpuPerOperationMs(windows: Measured[]): Record<string, number> {
  const ops = windows.reduce((n, w) => n + w.result.ops, 0);
  const names = [...windows[0]!.cpuMs.keys()];
  const per = names.map((name) => [name, windows.reduce((t, w) => t + w.cpuMs.get(name)!, 0) / ops] as const);
  return Object.fromEntries([...per, ['total', per.reduce((t, [, ms]) => t + ms, 0)]]);
}

const cpuPerOperation = (windows: Measured[]): string => {
  const { total, ...per } = cpuPerOperationMs(windows);
  return `${Object.entries(per)
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
    .join(', ')}; total ${total!.toFixed(1)} ms`;
};

/** The rounds of one server as one result: every operation and latency over the summed time. */
function pooled(results: BenchResult[]): Figures {
  return figures({
    name: results[0]!.name,
    ops: results.reduce((n, r) => n + r.ops, 0),
    seconds: results.reduce((n, r) => n + r.seconds, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    firstError: null,
  });
}

const line = (name: string, f: Figures) =>
  `  ${name.padEnd(26)} ${f.opsPerSecond.toFixed(1).padStart(7)} ops/s   p50 ${f.p50Ms.toFixed(1)} ms   p99 ${f.p99Ms.toFixed(1)} ms`;

/** One server's figures for the record: over all rounds, by round, and its CPU per operation. */
function sideFigures(windows: Measured[]): Record<string, unknown> {
  const all = pooled(windows.map((m) => m.result));
  return {
    opsPerS: round(all.opsPerSecond),
    p50Ms: round(all.p50Ms),
    p99Ms: round(all.p99Ms),
    roundsOpsPerS: windows.map((m) => round(figures(m.result).opsPerSecond)),
    cpuPerOperationMs: Object.fromEntries(
      Object.entries(cpuPerOperationMs(windows)).map(([name, ms]) => [name, round(ms)]),
    ),
  };
}

export async function compareWithLnbits(): Promise<void> {
  const results = benchRun('wallet-vs-lnbits', { clients, warmupSeconds, seconds, rounds, lnbits: LNBITS_VERSION });
  const cleanup = new Cleanup();
  const dir = mkdtempSync(join(tmpdir(), 'bench-lnbits-'));
  cleanup.add(() => rmSync(dir, { recursive: true, force: true }));
  try {
    installLnbits();
    console.log(
      'lab: btcd, alice and bob (lnd) with a channel bob -> alice, Postgres, Redis, the wallet server on alice',
    );
    const regtest = await cleanup.acquire(
      () =>
        startRegtest({
          lnd: ['alice', 'bob'],
          channels: [{ from: 'bob', to: 'alice', capacity_sat: 2_000_000 }],
          services: { 'wallet-server': { node: 'alice', admin_pubkeys: [] } },
        }),
      (lab) => lab.stop(),
    );
    const sides = [await reglabSide(regtest), await lnbitsSide(regtest, cleanup, dir)];
    console.log(
      `${clients} clients, ${warmupSeconds} s warm-up then ${seconds} s per figure, ${rounds} round(s); ` +
        `${cpus().length} cores, load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')} at start`,
    );
    const lab = ['alice', 'postgres', 'redis'].map((service) =>
      processTree(service === 'alice' ? 'lnd alice' : service, handlePid(regtest, service)),
    );
    // the bench's own process: the load generator's thread, and the lab's runtime
    const bench: Watched = { name: 'bench', cpuMs: () => ownCpuMs(process.pid) };
    const counted = sides.map(() => ({ ops: 0 }));
    const windows: Measured[][] = sides.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      for (const [i, side] of sides.entries()) {
        const other = sides[1 - i]!;
        await other.idle.stop();
        await side.idle.start();
        windows[i]!.push(await measure(side, [...lab, bench], counted[i]!));
      }
    }
    console.log(
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')} at the end`,
    );
    console.log('\nside by side (one operation = invoice on the payee wallet + internal payment from another wallet):');
    const show = (title: string, figs: Figures[]) => {
      console.log(title);
      for (const [i, side] of sides.entries()) console.log(line(side.name, figs[i]!));
      console.log(`  ratio (reglab / LNbits, ops/s): ${(figs[0]!.opsPerSecond / figs[1]!.opsPerSecond).toFixed(1)}×`);
    };
    for (let round = 0; round < rounds; round++)
      show(
        `round ${round + 1}:`,
        windows.map((w) => figures(w[round]!.result)),
      );
    show(
      `all ${rounds} rounds:`,
      windows.map((w) => pooled(w.map((m) => m.result))),
    );
    console.log('CPU time per operation (ms, over the measured windows; a busy machine distorts it less than ops/s):');
    for (const [i, side] of sides.entries()) console.log(`  ${side.name.padEnd(26)} ${cpuPerOperation(windows[i]!)}`);
    const [reglab, lnbits] = windows.map(sideFigures) as [Record<string, number>, Record<string, number>];
    const ratio = (a: number, b: number) => round(a / b);
    results.record({
      reglab,
      lnbits,
      ratio: ratio(reglab.opsPerS!, lnbits.opsPerS!),
      roundRatios: windows[0]!.map((m, r) =>
        ratio(figures(m.result).opsPerSecond, figures(windows[1]![r]!.result).opsPerSecond),
      ),
      payeesMatched,
    });
  } finally {
    await cleanup.run();
  }
}
