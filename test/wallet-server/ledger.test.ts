import { describe, expect, it } from 'vitest';
import { migrate } from '../../services/wallet-server/src/db/migrate.js';
import { migrations } from '../../services/wallet-server/src/db/migrations.js';
import { ledgerOnPostgres } from './ledger-support.js';

describe('wallet-server ledger (reserve, settle, refund, credit) on real Postgres', () => {
  const pg = ledgerOnPostgres('ledger');
  const entries = async (paymentId: string) =>
    (
      await pg.db.query<{ reason: string; delta: string }>(
        'select reason, delta::text from ledger_entries where payment_id = $1 order by id',
        [paymentId],
      )
    ).rows;

  it('applies migrations once and records them', async () => {
    expect(await migrate(pg.db)).toEqual([]);
    const { rows } = await pg.db.query<{ version: number }>('select version from schema_migrations order by version');
    expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
  });

  it('reserves amount + fee limit, then settles and refunds the unused fee', async () => {
    const w = await pg.wallet();
    await pg.ledger.recordReceived({ walletId: w, kind: 'keysend', amountMsat: 10_000n });
    const p = await pg.ledger.reserveOutgoing({
      walletId: w,
      kind: 'pay',
      amountMsat: 5_000n,
      feeLimitMsat: 100n,
      paymentHash: 'h1',
      bolt11: 'lnbcrt1...',
    });
    expect(p).toMatchObject({ status: 'pending', direction: 'out', amountMsat: 5_000n, feeLimitMsat: 100n });
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(4_900n);
    const done = await pg.ledger.settleOutgoing(p.id, { feeMsat: 30n, preimage: 'pre' });
    expect(done).toMatchObject({ status: 'succeeded', feeMsat: 30n, preimage: 'pre' });
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(4_970n);
    expect(await entries(p.id)).toEqual([
      { reason: 'reserve', delta: '-5100' },
      { reason: 'settle', delta: '70' },
    ]);
    expect((await pg.ledger.settleOutgoing(p.id, { feeMsat: 30n })).status).toBe('succeeded'); // idempotent
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(4_970n);
    await expect(pg.ledger.failOutgoing(p.id, 'late')).rejects.toMatchObject({
      kind: 'conflict',
      code: expect.stringMatching(/^PAYMENT_ALREADY_/),
    });
    expect((await pg.ledger.findByHash('h1', w, 'out'))!.id).toBe(p.id);
  });

  it('refunds the whole reservation on failure, once', async () => {
    const w = await pg.wallet();
    await pg.ledger.recordReceived({ walletId: w, kind: 'keysend', amountMsat: 1_000n });
    const p = await pg.ledger.reserveOutgoing({
      walletId: w,
      kind: 'keysend',
      amountMsat: 900n,
      feeLimitMsat: 100n,
      destPubkey: `02${'a'.repeat(64)}`,
    });
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(0n);
    await expect(
      pg.ledger.reserveOutgoing({ walletId: w, kind: 'pay', amountMsat: 1n, feeLimitMsat: 0n }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' });
    expect((await pg.ledger.pendingOutgoing()).map((x) => x.id)).toContain(p.id);
    const failed = await pg.ledger.failOutgoing(p.id, 'no route');
    expect(failed).toMatchObject({ status: 'failed', error: 'no route' });
    await pg.ledger.failOutgoing(p.id, 'no route');
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(1_000n);
    expect((await pg.ledger.pendingOutgoing()).map((x) => x.id)).not.toContain(p.id);
    await expect(pg.ledger.settleOutgoing(p.id, { feeMsat: 0n })).rejects.toMatchObject({
      kind: 'conflict',
      code: expect.stringMatching(/^PAYMENT_ALREADY_/),
    });
  });

  it('credits an incoming invoice only when settled, once, with BTC and asset legs', async () => {
    const w = await pg.wallet();
    const inv = await pg.ledger.createIncoming({
      walletId: w,
      kind: 'invoice',
      amountMsat: 2_000n,
      paymentHash: 'h2',
      bolt11: 'lnbcrt2...',
      assetId: 'rgb:x',
      assetAmount: 7n,
    });
    expect(inv.status).toBe('pending');
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(0n);
    expect((await pg.ledger.pendingIncoming()).map((x) => x.id)).toContain(inv.id);
    await pg.ledger.settleIncoming(inv.id, { preimage: 'p2' });
    await pg.ledger.settleIncoming(inv.id);
    expect(await pg.ledger.balances(w)).toEqual([
      { assetKind: 'btc', assetId: '', amount: 2_000n },
      { assetKind: 'rgb', assetId: 'rgb:x', amount: 7n },
    ]);
    const zeroAmount = await pg.ledger.createIncoming({
      walletId: w,
      kind: 'invoice',
      amountMsat: 0n,
      paymentHash: 'h3',
    });
    expect((await pg.ledger.settleIncoming(zeroAmount.id, { receivedMsat: 123n })).amountMsat).toBe(123n);
    const expired = await pg.ledger.createIncoming({ walletId: w, kind: 'invoice', amountMsat: 5n, paymentHash: 'h4' });
    expect((await pg.ledger.failIncoming(expired.id, 'expired')).status).toBe('failed');
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(2_123n);
  });

  it('never overdraws under 30 concurrent reservations', async () => {
    const w = await pg.wallet();
    await pg.ledger.recordReceived({ walletId: w, kind: 'keysend', amountMsat: 3_000n });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () =>
        pg.ledger.reserveOutgoing({ walletId: w, kind: 'pay', amountMsat: 900n, feeLimitMsat: 100n }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await pg.ledger.btcBalanceMsat(w)).toBe(0n);
  });
});
