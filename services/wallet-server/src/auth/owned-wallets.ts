// The wallets the auth hook has found a user to own, so the payment calls that name one in
// x-service-wallet-key (two per internal payment) do not each ask Postgres again. A yes stays true:
// a wallet never changes hands and users are not deleted. Only yeses are kept (ids that are not the
// caller's are asked every time), each for a while, so a database replaced under a running server
// (a reset) is noticed within that time; and only so many, oldest dropped first.
export interface OwnedWalletsOptions {
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class OwnedWallets {
  /** `${userId} ${walletId}` → when the yes expires (ms); oldest first. */
  private readonly entries = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: OwnedWalletsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30_000;
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  owns(userId: string, walletId: string): boolean {
    const key = `${userId} ${walletId}`;
    const expires = this.entries.get(key);
    if (expires === undefined) return false;
    if (expires > this.now()) return true;
    this.entries.delete(key);
    return false;
  }

  remember(userId: string, walletId: string): void {
    const key = `${userId} ${walletId}`;
    this.entries.delete(key);
    this.entries.set(key, this.now() + this.ttlMs);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
