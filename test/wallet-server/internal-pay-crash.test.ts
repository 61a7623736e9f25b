// An invoice of another wallet of the server is paid in the ledger alone; its node invoice is
// cancelled afterwards by the cancel worker, durably. Against a real wallet server process on
// alice (lnd), with bob paying from outside. The server reaches alice through a TCP proxy the test
// cuts, so the cancel cannot land; the server is SIGKILLed between the ledger settlement and the
// node cancel.
// Its own lab: a channel alice -> bob with funds on bob's side, and alice cut off from the wallet
// server.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import pg from 'pg';
import { getInvoice, pay } from 'ln-service';
import { freePort } from '../../control-plane/src/util/ports.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { startInfra, type Infra } from './support.js';
import { eventually, newDatabase } from './lightning-support.js';
import { WalletServerProcess } from './server-process.js';
import { startTcpProxy, type TcpProxy } from '../support/proxy.js';

const AMOUNT_MSAT = 40_000_000n;

let infra: Infra;
let regtest: Regtest;
let db: pg.Client;
let server: WalletServerProcess;
let aliceLink: TcpProxy;
let token: string;
let payer: string;
let payee: string;

const alice = () => regtest.lnd('alice');
const bob = () => regtest.lnd('bob');

async function balance(wallet: string): Promise<bigint> {
  const { rows } = await db.query(`select amount::text from balances where wallet_id = $1 and asset_kind = 'btc'`, [
    wallet,
  ]);
  return BigInt(rows[0]?.amount ?? 0);
}

async function cancelRow(hash: string): Promise<{ outcome: string | null } | undefined> {
  const { rows } = await db.query('select outcome from node_invoice_cancels where payment_hash = $1', [hash]);
  return rows[0];
}

async function newInvoice(
  wallet: string,
  amountMsat: bigint,
): Promise<{ payment_request: string; payment_hash: string }> {
  const res = await server.call(
    'POST',
    '/payments/invoices',
    { token, wallet },
    { amount_msat: amountMsat.toString() },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

beforeAll(async () => {
  [infra, regtest] = await Promise.all([
    startInfra(),
    startRegtest({
      lnd: ['alice', 'bob'],
      channels: [{ from: 'alice', to: 'bob', capacity_sat: 2_000_000, push_sat: 1_000_000 }],
    }),
  ]);
  const databaseUrl = await newDatabase(infra);
  aliceLink = await startTcpProxy(Number(regtest.lndCredentials('alice').socket.split(':').at(-1)));
  const port = await freePort();
  server = new WalletServerProcess(
    {
      ...regtest.lndEnv('alice'),
      LND_GRPC_HOST: `127.0.0.1:${aliceLink.port}`,
      NODE_KIND: 'lnd',
      DATABASE_URL: databaseUrl,
      REDIS_URL: infra.redis.url,
      HOST: '127.0.0.1',
      PORT: String(port),
      TOKEN_SECRET: randomBytes(32).toString('hex'),
      INVOICE_RECONCILE_MS: '1000',
      LOG_LEVEL: 'error',
    },
    `http://127.0.0.1:${port}`,
  );
  db = new pg.Client({ connectionString: databaseUrl });
  await server.start();
  await db.connect();
  token = await server.signUp();
  [payer, payee] = [await server.createWallet(token, 'payer'), await server.createWallet(token, 'payee')];
  // Funded the real way: bob pays an invoice of the payer.
  await pay({ lnd: bob(), request: (await newInvoice(payer, 300_000_000n)).payment_request });
  await eventually(async () => (await balance(payer)) === 300_000_000n, 'the funding invoice to be credited');
});

afterAll(async () => {
  await server?.kill();
  await aliceLink?.close();
  await db?.end();
  await Promise.all([regtest?.stop(), infra?.stop()]);
});

/** The payee's invoice, paid internally while the server cannot reach alice: the answer comes
 * without lnd, and the node invoice stays open. */
async function payInternallyWithAliceCut(): Promise<{ payment_request: string; payment_hash: string }> {
  const invoice = await newInvoice(payee, AMOUNT_MSAT);
  await aliceLink.cut();
  try {
    const paid = await server.call(
      'POST',
      '/payments/pay',
      { token, wallet: payer },
      { invoice: invoice.payment_request },
    );
    expect(paid.status, JSON.stringify(paid.json)).toBe(200);
    expect(paid.json).toMatchObject({ status: 'succeeded', fee_msat: '0', counterparty_wallet_id: payee });
    expect((await cancelRow(invoice.payment_hash))?.outcome).toBeNull();
  } catch (err) {
    await aliceLink.restore();
    throw err;
  }
  return invoice;
}

/** The cancel lands: lnd refuses bob's payment, and the payment moved the amount once. */
async function expectCancelledAndRefused(
  invoice: { payment_request: string; payment_hash: string },
  before: { payer: bigint; payee: bigint },
) {
  await eventually(
    async () => (await cancelRow(invoice.payment_hash))?.outcome === 'closed',
    'the cancel worker to close the node invoice',
  );
  expect((await getInvoice({ lnd: alice(), id: invoice.payment_hash })).is_canceled).toBe(true);
  // refused by alice as an invoice it no longer takes, not lost on the way (a route, a timeout)
  await expect(pay({ lnd: bob(), request: invoice.payment_request })).rejects.toEqual([
    503,
    'PaymentRejectedByDestination',
  ]);
  expect(await balance(payer)).toBe(before.payer - AMOUNT_MSAT);
  expect(await balance(payee)).toBe(before.payee + AMOUNT_MSAT);
}

test('paid without lnd; the node invoice is cancelled once alice is reachable again, and bob cannot pay it', async () => {
  const before = { payer: await balance(payer), payee: await balance(payee) };
  const invoice = await payInternallyWithAliceCut();
  await aliceLink.restore();
  await expectCancelledAndRefused(invoice, before);
});

test('killed before the cancel: the restarted server cancels it, and bob cannot pay it', async () => {
  const before = { payer: await balance(payer), payee: await balance(payee) };
  const invoice = await payInternallyWithAliceCut();
  await server.kill();
  await aliceLink.restore();
  // The crash left the node invoice payable and the cancel pending.
  expect(Boolean((await getInvoice({ lnd: alice(), id: invoice.payment_hash })).is_canceled)).toBe(false);
  expect((await cancelRow(invoice.payment_hash))?.outcome).toBeNull();
  await server.start();
  await expectCancelledAndRefused(invoice, before);
});

test("killed before the cancel and paid by bob meanwhile: bob's payment is credited to the payee once", async () => {
  const [payerBefore, payeeBefore] = [await balance(payer), await balance(payee)];
  const invoice = await payInternallyWithAliceCut();
  await server.kill();
  await aliceLink.restore();
  await pay({ lnd: bob(), request: invoice.payment_request });
  await server.start();
  await eventually(
    async () => (await cancelRow(invoice.payment_hash))?.outcome === 'paid_on_node',
    'the restarted server to find the invoice paid on the node',
  );
  const node = await getInvoice({ lnd: alice(), id: invoice.payment_hash });
  expect(node.is_confirmed).toBe(true);
  // Two payers paid the invoice once each: the payer here in the ledger, bob on the node.
  expect(await balance(payer)).toBe(payerBefore - AMOUNT_MSAT);
  expect(await balance(payee)).toBe(payeeBefore + AMOUNT_MSAT + BigInt(node.received_mtokens));
  const { rows } = await db.query(
    `select status, transfer_id is not null as internal from payments where payment_hash = $1 and direction = 'in' order by id`,
    [invoice.payment_hash],
  );
  expect(rows).toEqual([
    { status: 'succeeded', internal: true },
    { status: 'succeeded', internal: false },
  ]);
  // Later passes of the stream, the reconcile and the worker leave it credited once.
  await server.kill();
  await server.start();
  expect(await balance(payee)).toBe(payeeBefore + AMOUNT_MSAT + BigInt(node.received_mtokens));
});
