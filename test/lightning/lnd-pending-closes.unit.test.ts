// When lnd says a force-closed channel's own funds can be swept, from ln-service's pending channels.
import { describe, expect, it } from 'vitest';
import { blocksUntilSweep, sweepOverdue } from '../../lib/lightning/lnd/client.js';

describe("an lnd force close's blocks until sweep", () => {
  it('is not known while lnd has no maturity height yet (it answers 0 blocks then)', () => {
    expect(blocksUntilSweep({ timelock_blocks: 0, timelock_expiration: undefined })).toBeUndefined();
    expect(blocksUntilSweep({ timelock_blocks: 0, timelock_expiration: 0 })).toBeUndefined();
  });
  it('counts down to the maturity height, then stays 0 until the sweep confirms', () => {
    expect(blocksUntilSweep({ timelock_blocks: 144, timelock_expiration: 650 })).toBe(144);
    expect(blocksUntilSweep({ timelock_blocks: 0, timelock_expiration: 650 })).toBe(0);
    expect(blocksUntilSweep({ timelock_blocks: -3, timelock_expiration: 650 })).toBe(0);
  });
  it('is not given for a close without a timelock of its own', () => {
    expect(blocksUntilSweep({ timelock_blocks: undefined, timelock_expiration: undefined })).toBeUndefined();
  });
});

describe("an lnd force close's sweep, overdue", () => {
  it('once lnd has processed three blocks past the maturity without sweeping the funds', () => {
    expect(sweepOverdue({ timelock_expiration: 650, pending_payments: [] }, 652)).toBeUndefined();
    expect(sweepOverdue({ timelock_expiration: 650, pending_payments: [] }, 653)).toBe(true);
  });
  it('not while the maturity is unknown or ahead', () => {
    expect(sweepOverdue({ timelock_expiration: undefined }, 900)).toBeUndefined();
    expect(sweepOverdue({ timelock_expiration: 650 }, 600)).toBeUndefined();
  });
  it('not while HTLCs of the close wait for their timeouts', () => {
    expect(sweepOverdue({ timelock_expiration: 650, pending_payments: [{}] }, 700)).toBeUndefined();
  });
});
