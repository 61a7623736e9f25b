// The records of an activity: figures (failures by reason, payments a second) and the CSV export.
import { describe, expect, it } from 'vitest';
import { PaymentRecords, recordsAsCsv, type PaymentRecord } from '../../control-plane/src/activity/records.js';

const record = (overrides: Partial<PaymentRecord>): PaymentRecord => ({
  time: '2026-11-28T20:00:00.000Z',
  source: 'random',
  seq: 1,
  from: 'alice',
  to: 'carol',
  amountSat: 1000,
  feeMsat: '1001',
  hops: 2,
  latencyMs: 120,
  outcome: 'succeeded',
  paymentHash: 'ab'.repeat(32),
  ...overrides,
});

describe('payment records', () => {
  it('counts outcomes, amounts, fees and failures by reason', () => {
    const records = new PaymentRecords();
    const now = 1_000_000;
    records.add(record({}), now - 20_000);
    records.add(record({ seq: 2, amountSat: 500, feeMsat: '5' }), now - 1_000);
    const failed = { outcome: 'failed' as const, feeMsat: '0', code: 'PAYMENT_FAILED' };
    records.add(record({ seq: 3, ...failed, reason: 'no route to the destination within the fee limit' }), now);
    records.add(record({ seq: 4, ...failed, reason: 'no route to the destination within the fee limit' }), now);
    records.add(record({ seq: 5, ...failed, code: 'SERVICE_NOT_READY', reason: 'bob is restarting' }), now);
    records.add(record({ seq: 6, outcome: 'pending', feeMsat: '0', reason: 'not ended' }), now);
    expect(records.figures(now)).toEqual({
      attempted: 6,
      succeeded: 2,
      failed: 3,
      pending: 1,
      // five ended within the last 10 s
      paymentsPerSecond: 0.5,
      amountSatSucceeded: 1500,
      feeMsatPaid: '1006',
      failuresByReason: { 'no route to the destination within the fee limit': 2, 'bob is restarting': 1 },
    });
    expect(records.all().map((kept) => kept.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('writes CSV with a header, quoting fields that hold commas, quotes or line breaks', () => {
    const csv = recordsAsCsv([
      record({}),
      record({
        seq: 2,
        outcome: 'failed',
        feeMsat: '0',
        hops: undefined,
        code: 'NODE_ERROR',
        reason: 'bob said "no", then\nclosed',
        paymentHash: undefined,
      }),
    ]);
    expect(csv.split('\n')[0]).toBe(
      'time,source,seq,from,to,amount_sat,fee_msat,hops,latency_ms,outcome,code,reason,payment_hash',
    );
    expect(csv).toBe(
      `time,source,seq,from,to,amount_sat,fee_msat,hops,latency_ms,outcome,code,reason,payment_hash
2026-11-28T20:00:00.000Z,random,1,alice,carol,1000,1001,2,120,succeeded,,,${'ab'.repeat(32)}
2026-11-28T20:00:00.000Z,random,2,alice,carol,1000,0,,120,failed,NODE_ERROR,"bob said ""no"", then
closed",
`,
    );
  });
});
