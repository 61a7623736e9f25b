// The auth hook's memory of which wallets a user owns: per user, for a while, bounded.
import { describe, expect, it } from 'vitest';
import { OwnedWallets } from '../../services/wallet-server/src/auth/owned-wallets.js';

describe('owned wallets', () => {
  it('knows a wallet only for the user it was found to belong to', () => {
    const owned = new OwnedWallets();
    owned.remember('alice', 'w1');
    expect(owned.owns('alice', 'w1')).toBe(true);
    expect(owned.owns('mallory', 'w1')).toBe(false);
    expect(owned.owns('alice', 'w2')).toBe(false);
  });

  it('forgets after its time, so a replaced database is asked again', () => {
    let now = 0;
    const owned = new OwnedWallets({ ttlMs: 1_000, now: () => now });
    owned.remember('alice', 'w1');
    now = 999;
    expect(owned.owns('alice', 'w1')).toBe(true);
    now = 1_000;
    expect(owned.owns('alice', 'w1')).toBe(false);
  });

  it('keeps at most so many, dropping the oldest', () => {
    const owned = new OwnedWallets({ maxEntries: 2 });
    owned.remember('alice', 'w1');
    owned.remember('alice', 'w2');
    owned.remember('alice', 'w1'); // found again: now the newest
    owned.remember('alice', 'w3');
    expect([owned.owns('alice', 'w1'), owned.owns('alice', 'w2'), owned.owns('alice', 'w3')]).toEqual([
      true,
      false,
      true,
    ]);
  });
});
