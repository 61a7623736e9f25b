// LNbits as the side-by-side anchor of the wallet bench (see ../shared/reference/lnbits.md): a
// pinned install from PyPI in a venv under the cache folder (once), and a running LNbits on a
// given Postgres database and lnd node (LndRestWallet), in its own process group.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../lib/wait.js';

export const LNBITS_VERSION = '1.6.2';
/**
 * bitstring 4.3+ breaks the bolt11 package LNbits uses ("cannot import name 'ConstBitStream'"). pyln-proto
 * (of LNbits' Core Lightning backend) declares 4.3+ yet loads with 4.2: pip's warning is silenced.
 */
const BITSTRING_PIN = 'bitstring<4.3';

const home = join(process.env.REGLAB_CACHE_DIR ?? join(homedir(), '.cache', 'reglab'), `lnbits-${LNBITS_VERSION}`);
const venv = join(home, 'venv');
const installedStamp = join(home, 'installed');

/** Installs LNbits into the cache venv unless a finished install is there; returns the venv. */
export function installLnbits(): string {
  if (existsSync(installedStamp)) return venv;
  mkdirSync(home, { recursive: true });
  const step = (what: string, command: string, args: string[]) => {
    console.log(`LNbits install: ${what}`);
    const r = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0)
      throw new Error(
        `LNbits install failed at "${what}" (${command} ${args.join(' ')}): exit ${r.status ?? r.signal}`,
      );
  };
  if (!existsSync(join(venv, 'bin', 'pip'))) step('python3 -m venv', 'python3', ['-m', 'venv', venv]);
  step(`pip install lnbits==${LNBITS_VERSION}`, join(venv, 'bin', 'pip'), [
    'install',
    '--quiet',
    `lnbits==${LNBITS_VERSION}`,
  ]);
  step(
    `pip install ${BITSTRING_PIN} (for bolt11: pyln-proto declares 4.3+, loads with 4.2)`,
    join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--no-warn-conflicts', BITSTRING_PIN],
  );
  writeFileSync(installedStamp, `lnbits==${LNBITS_VERSION} ${BITSTRING_PIN}\n`);
  return venv;
}

/** Its package folder: LNbits mounts lnbits/static relative to the working directory. */
function sitePackages(venvDir: string): string {
  const r = spawnSync(
    join(venvDir, 'bin', 'python'),
    ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`cannot find the site-packages of ${venvDir}: ${r.stderr}`);
  return r.stdout.trim();
}

export interface LnbitsSettings {
  port: number;
  dataDir: string;
  databaseUrl: string;
  lndRestUrl: string;
  lndTlsCertPath: string;
  lndMacaroonHex: string;
  logFile: string;
}

export interface RunningLnbits {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export async function startLnbits(venvDir: string, s: LnbitsSettings): Promise<RunningLnbits> {
  mkdirSync(s.dataDir, { recursive: true });
  const log = openSync(s.logFile, 'a');
  const child = spawn(join(venvDir, 'bin', 'lnbits'), ['--host', '127.0.0.1', '--port', String(s.port)], {
    cwd: sitePackages(venvDir),
    env: {
      ...process.env,
      LNBITS_DATA_FOLDER: s.dataDir,
      LNBITS_DATABASE_URL: s.databaseUrl,
      LNBITS_BACKEND_WALLET_CLASS: 'LndRestWallet',
      LND_REST_ENDPOINT: s.lndRestUrl,
      LND_REST_CERT: s.lndTlsCertPath,
      LND_REST_MACAROON: s.lndMacaroonHex,
      LNBITS_ADMIN_UI: 'false',
      // Its default, 200 requests a minute per client, would measure the limiter, not the server.
      LNBITS_RATE_LIMIT_NO: '1000000',
      DEBUG: 'false',
    },
    detached: true,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start LNbits');
  child.unref();
  const url = `http://127.0.0.1:${s.port}`;
  const running: RunningLnbits = { pid, url, stop: () => stopGroup(pid) };
  try {
    await waitFor(
      async () => {
        if (!isAlive(pid)) throw new Error(`LNbits exited at start; its log: ${s.logFile}\n${tail(s.logFile)}`);
        return (await fetch(`${url}/api/v1/health`).catch(() => null))?.ok ?? false;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: `LNbits to answer on ${url} (log: ${s.logFile})` },
    );
  } catch (err) {
    await running.stop();
    throw err;
  }
  return running;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tail(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-20).join('\n') : '';
}

/** SIGTERM to the process group, SIGKILL if it is still there after 10 s. */
async function stopGroup(pid: number): Promise<void> {
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pid, s);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  try {
    await waitFor(async () => !isAlive(pid), { timeoutMs: 10_000, intervalMs: 100, what: 'LNbits to stop' });
  } catch {
    signal('SIGKILL');
  }
}

export interface LnbitsWallet {
  id: string;
  adminKey: string;
  invoiceKey: string;
}

/** A new LNbits account with its wallet (POST /api/v1/account). */
export async function createLnbitsWallet(url: string, name: string): Promise<LnbitsWallet> {
  const res = await fetch(`${url}/api/v1/account`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  if (!res.ok) throw new Error(`LNbits POST /api/v1/account: ${res.status} ${await res.text()}`);
  const w = (await res.json()) as { id: string; adminkey: string; inkey: string };
  return { id: w.id, adminKey: w.adminkey, invoiceKey: w.inkey };
}

export async function lnbitsInvoice(url: string, wallet: LnbitsWallet, amountSat: number): Promise<string> {
  const res = await fetch(`${url}/api/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': wallet.invoiceKey },
    body: JSON.stringify({ out: false, amount: amountSat, memo: '' }),
  });
  if (!res.ok) throw new Error(`LNbits invoice: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { bolt11: string }).bolt11;
}

export async function lnbitsBalanceMsat(url: string, wallet: LnbitsWallet): Promise<bigint> {
  const res = await fetch(`${url}/api/v1/wallet`, { headers: { 'x-api-key': wallet.invoiceKey } });
  if (!res.ok) throw new Error(`LNbits GET /api/v1/wallet: ${res.status} ${await res.text()}`);
  return BigInt(((await res.json()) as { balance: number }).balance);
}
