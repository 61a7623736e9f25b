// A wallet server process killed (SIGKILL) in the middle of a payment to a hold invoice on bob:
// after a restart the payment is settled or refunded from lnd's final answer, never lost or paid twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, test } from 'vitest';
import pg from 'pg';
import { cancelHodlInvoice, createHodlInvoice, getInvoice, pay, settleHodlInvoice } from 'ln-service';
import { freePort } from '../../control-plane/src/util/ports.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { REGTEST_ADDRESS, newKey, signNonce, startInfra, type Infra } from './support.js';
import { eventually, newDatabase } from './lightning-support.js';

let infra: Infra;
let regtest: Regtest;
let db: pg.Client;
let env: Record<string, string>;
let base: string;
let proc: ChildProcess | null = null;
let token: string;
let wallet: string;

async function startServer(): Promise<void> {
  proc = spawn(process.execPath, ['--import', 'tsx', 'services/wallet-server/src/main.ts'], {
    env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => (await fetch(`${base}/health`).catch(() => null))?.ok, 'the wallet server to answer /health', 60_000);
}

async function killServer(): Promise<void> {
  const p = proc!;
  proc = null;
  const exited = once(p, 'exit');
  p.kill('SIGKILL');
  await exited;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'x-service-wallet-key': wallet, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json() };
}

async function balance(): Promise<bigint> {
  const { rows } = await db.query(`select amount::text from balances where wallet_id = $1 and asset_kind = 'btc'`, [wallet]);
  return BigInt(rows[0]?.amount ?? 0);
}

async function outgoing(hash: string): Promise<{ status: string; fee_msat: string } | undefined> {
  const { rows } = await db.query(`select status, fee_msat::text from payments where payment_hash = $1 and direction = 'out'`, [hash]);
  return rows[0];
}

beforeAll(async () => {
  [infra, regtest] = await Promise.all([
    startInfra(),
    startRegtest({ lnd: ['alice', 'bob'], channels: [{ from: 'alice', to: 'bob', capacity_sat: 2_000_000, push_sat: 500_000 }] }),
  ]);
  const databaseUrl = await newDatabase(infra);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  env = {
    ...regtest.lndEnv('alice'), NODE_KIND: 'lnd', DATABASE_URL: databaseUrl, REDIS_URL: infra.redis.url, HOST: '127.0.0.1',
    PORT: String(port), TOKEN_SECRET: randomBytes(32).toString('hex'), PAY_WAIT_MS: '120000', INVOICE_RECONCILE_MS: '1000',
    LOG_LEVEL: 'warn',
  };
  db = new pg.Client({ connectionString: databaseUrl });
  await startServer();
  await db.connect();

  const key = newKey();
  await fetch(`${base}/auth/enroll`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS }) });
  const { nonce } = await (await fetch(`${base}/auth/challenge?pubkey=${key.pubkey}`)).json();
  const verify = await fetch(`${base}/auth/verify`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ pubkey: key.pubkey, nonce, signature: await signNonce(key.secretKey, nonce) }),
  });
  token = (await verify.json()).access_token;
  const w = await fetch(`${base}/wallets`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'crash' }) });
  wallet = (await w.json()).id;

  // Funded the real way: bob pays an invoice of the wallet.
  const inv = await api('POST', '/payments/invoices', { amount_msat: 200_000_000 });
  expect(inv.status).toBe(200);
  await pay({ lnd: regtest.lnd('bob'), request: inv.json.payment_request });
  await eventually(async () => (await balance()) === 200_000_000n, 'the funding invoice to be credited');
});

afterAll(async () => {
  if (proc) await killServer();
  await db?.end();
  await Promise.all([regtest?.stop(), infra?.stop()]);
});

/** Starts paying a new hold invoice of bob and kills the server while lnd holds the HTLC. */
async function killMidPayment(sat: number): Promise<{ secret: string; id: string }> {
  const secret = randomBytes(32).toString('hex');
  const id = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
  const { request } = await createHodlInvoice({ lnd: regtest.lnd('bob'), id, tokens: sat });
  const paying = api('POST', '/payments/pay', { invoice: request }).catch(() => 'connection closed');
  await eventually(async () => (await getInvoice({ lnd: regtest.lnd('bob'), id })).is_held, 'bob to hold the HTLC');
  await killServer();
  expect(await paying).toBe('connection closed');
  expect((await outgoing(id))?.status).toBe('pending');
  return { secret, id };
}

test('settled while the server is down: charged once at restart', async () => {
  const before = await balance();
  const { secret, id } = await killMidPayment(50_000);
  // Amount and the 1% fee limit stay reserved while nobody knows the outcome.
  expect(await balance()).toBe(before - 50_000_000n - 500_000n);
  await settleHodlInvoice({ lnd: regtest.lnd('bob'), secret });
  await startServer();
  const p = await eventually(async () => {
    const r = await outgoing(id);
    return r?.status === 'succeeded' && r;
  }, 'the payment to be settled after the restart');
  expect(await balance()).toBe(before - 50_000_000n - BigInt(p.fee_msat));
});

test('still held at restart, then cancelled: refunded in full', async () => {
  const before = await balance();
  const { id } = await killMidPayment(30_000);
  await startServer();
  expect((await outgoing(id))?.status).toBe('pending');
  await cancelHodlInvoice({ lnd: regtest.lnd('bob'), id });
  await eventually(async () => (await outgoing(id))?.status === 'failed', 'the payment to be refunded');
  expect(await balance()).toBe(before);
});
