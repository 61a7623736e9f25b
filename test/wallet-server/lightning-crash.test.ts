// A wallet server process killed (SIGKILL) in the middle of a payment to a hold invoice on bob:
// after a restart the payment is settled or refunded from its node's final answer, never lost or
// paid twice; once with the server on an lnd node, once on an LDK node.
// Its own labs: one per node kind (lnd, LDK) the server runs on, with funds on bob's side of the
// channel.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import pg from 'pg';
import { cancelHodlInvoice, createHodlInvoice, getInvoice, pay, settleHodlInvoice } from 'ln-service';
import { freePort } from '../../control-plane/src/util/ports.js';
import type { Regtest } from '../support/regtest.js';
import { describeOnEachNodeKind, eventually, newDatabase, serverNodeEnv, startServerLab } from './lightning-support.js';
import { WalletServerProcess } from './server-process.js';

describeOnEachNodeKind((kind, infra) => {
  let regtest: Regtest;
  let db: pg.Client;
  let server: WalletServerProcess;
  let token: string;
  let wallet: string;

  const api = (method: string, path: string, body?: unknown) => server.call(method, path, { token, wallet }, body);

  async function balance(): Promise<bigint> {
    const { rows } = await db.query(`select amount::text from balances where wallet_id = $1 and asset_kind = 'btc'`, [
      wallet,
    ]);
    return BigInt(rows[0]?.amount ?? 0);
  }

  async function outgoing(hash: string): Promise<{ status: string; fee_msat: string } | undefined> {
    const { rows } = await db.query(
      `select status, fee_msat::text from payments where payment_hash = $1 and direction = 'out'`,
      [hash],
    );
    return rows[0];
  }

  beforeAll(async () => {
    regtest = await startServerLab(kind, { capacity_sat: 2_000_000, push_sat: 500_000 });
    const databaseUrl = await newDatabase(infra());
    const port = await freePort();
    server = new WalletServerProcess(
      {
        ...serverNodeEnv(regtest),
        DATABASE_URL: databaseUrl,
        REDIS_URL: infra().redis.url,
        HOST: '127.0.0.1',
        PORT: String(port),
        TOKEN_SECRET: randomBytes(32).toString('hex'),
        PAY_WAIT_MS: '120000',
        INVOICE_RECONCILE_MS: '1000',
        LOG_LEVEL: 'warn',
      },
      `http://127.0.0.1:${port}`,
    );
    db = new pg.Client({ connectionString: databaseUrl });
    await server.start();
    await db.connect();
    token = await server.signUp();
    wallet = await server.createWallet(token, 'crash');

    // Funded the real way: bob pays an invoice of the wallet.
    const inv = await api('POST', '/payments/invoices', { amount_msat: 200_000_000 });
    expect(inv.status).toBe(200);
    await pay({ lnd: regtest.lnd('bob'), request: inv.json.payment_request });
    await eventually(async () => (await balance()) === 200_000_000n, 'the funding invoice to be credited');
  });

  afterAll(async () => {
    await server?.kill();
    await db?.end();
    await regtest?.stop();
  });

  /** Starts paying a new hold invoice of bob and kills the server while lnd holds the HTLC. */
  async function killMidPayment(sat: number): Promise<{ secret: string; id: string }> {
    const secret = randomBytes(32).toString('hex');
    const id = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
    const { request } = await createHodlInvoice({ lnd: regtest.lnd('bob'), id, tokens: sat });
    const paying = api('POST', '/payments/pay', { invoice: request }).catch(() => 'connection closed');
    await eventually(async () => (await getInvoice({ lnd: regtest.lnd('bob'), id })).is_held, 'bob to hold the HTLC');
    await server.kill();
    expect(await paying).toBe('connection closed');
    expect((await outgoing(id))?.status).toBe('pending');
    return { secret, id };
  }

  test('settled while the server is down (the preimage revealed then): charged once at restart, preimage recorded', async () => {
    const before = await balance();
    const { secret, id } = await killMidPayment(50_000);
    // Amount and the 1% fee limit stay reserved while nobody knows the outcome.
    expect(await balance()).toBe(before - 50_000_000n - 500_000n);
    await settleHodlInvoice({ lnd: regtest.lnd('bob'), secret });
    expect((await getInvoice({ lnd: regtest.lnd('bob'), id })).is_confirmed).toBe(true);
    await server.start();
    const p = await eventually(async () => {
      const r = await outgoing(id);
      return r?.status === 'succeeded' && r;
    }, 'the payment to be settled after the restart');
    expect(await balance()).toBe(before - 50_000_000n - BigInt(p.fee_msat));
    // What the user sees: the payment succeeded with the preimage bob revealed while the server was down.
    const seen = await api('GET', `/payments/invoices/${id}`);
    expect(seen.status).toBe(200);
    expect(seen.json).toMatchObject({
      direction: 'out',
      kind: 'pay',
      status: 'succeeded',
      amount_msat: '50000000',
      fee_msat: p.fee_msat,
      preimage: secret,
    });
    expect(createHash('sha256').update(Buffer.from(seen.json.preimage, 'hex')).digest('hex')).toBe(id);
    // Charged once: the payment's ledger entries add up to amount + fee, and bob was paid exactly the invoice.
    const { rows } = await db.query(
      `select coalesce(sum(e.delta), 0)::text as sum from ledger_entries e join payments p on p.id = e.payment_id where p.payment_hash = $1 and p.direction = 'out'`,
      [id],
    );
    expect(BigInt(rows[0].sum)).toBe(-(50_000_000n + BigInt(p.fee_msat)));
    expect((await getInvoice({ lnd: regtest.lnd('bob'), id })).received).toBe(50_000);
    // A later start (the reconcile again) changes nothing.
    await server.kill();
    await server.start();
    expect(await balance()).toBe(before - 50_000_000n - BigInt(p.fee_msat));
  });

  test('still held at restart, then cancelled: refunded in full', async () => {
    const before = await balance();
    const { id } = await killMidPayment(30_000);
    await server.start();
    expect((await outgoing(id))?.status).toBe('pending');
    await cancelHodlInvoice({ lnd: regtest.lnd('bob'), id });
    await eventually(async () => (await outgoing(id))?.status === 'failed', 'the payment to be refunded');
    expect(await balance()).toBe(before);
  });
});
