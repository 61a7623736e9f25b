// Lightning addresses: a username claimed for one wallet (LUD-16), optionally with an LNURL-withdraw
// link (LUD-03) that may spend up to budget_msat in total, max_msat_per_withdraw at a time, each
// withdraw needing a fresh one-time k1.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.js';
import { sqlState } from '../db/db.js';
import { conflict } from '../errors.js';

export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,63}$';

/** How long a k1 handed out by GET /lnurlw/{username} stays usable. */
export const K1_TTL_SEC = 600;

export interface LightningAddress {
  username: string;
  walletId: string;
  withdrawEnabled: boolean;
  withdrawMaxMsat: bigint;
  withdrawBudgetMsat: bigint;
  withdrawSpentMsat: bigint;
}

interface Row {
  username: string;
  wallet_id: string;
  withdraw_enabled: boolean;
  withdraw_max_msat: string;
  withdraw_budget_msat: string;
  withdraw_spent_msat: string;
}

const COLUMNS = `username, wallet_id::text, withdraw_enabled, withdraw_max_msat::text, withdraw_budget_msat::text,
  withdraw_spent_msat::text`;

const toAddress = (r: Row): LightningAddress => ({
  username: r.username,
  walletId: r.wallet_id,
  withdrawEnabled: r.withdraw_enabled,
  withdrawMaxMsat: BigInt(r.withdraw_max_msat),
  withdrawBudgetMsat: BigInt(r.withdraw_budget_msat),
  withdrawSpentMsat: BigInt(r.withdraw_spent_msat),
});

export interface WithdrawSettings {
  enabled: boolean;
  maxMsat: bigint;
  budgetMsat: bigint;
}

export class LightningAddresses {
  constructor(private readonly db: Db) {}

  async byUsername(username: string): Promise<LightningAddress | null> {
    const { rows } = await this.db.query<Row>(`select ${COLUMNS} from lightning_addresses where username = $1`, [
      username,
    ]);
    return rows[0] ? toAddress(rows[0]) : null;
  }

  async byWallet(walletId: string): Promise<LightningAddress | null> {
    const { rows } = await this.db.query<Row>(`select ${COLUMNS} from lightning_addresses where wallet_id = $1`, [
      walletId,
    ]);
    return rows[0] ? toAddress(rows[0]) : null;
  }

  /** Gives the wallet this username (replacing its previous one). Renaming keeps the amount
   * already withdrawn; 409 when another wallet holds the username. */
  async claim(walletId: string, username: string, withdraw: WithdrawSettings): Promise<LightningAddress> {
    try {
      const { rows } = await this.db.query<Row>(
        `insert into lightning_addresses (username, wallet_id, withdraw_enabled, withdraw_max_msat, withdraw_budget_msat)
           values ($1, $2, $3, $4, $5)
           on conflict (wallet_id) do update set username = excluded.username, withdraw_enabled = excluded.withdraw_enabled,
             withdraw_max_msat = excluded.withdraw_max_msat, withdraw_budget_msat = excluded.withdraw_budget_msat, updated_at = now()
           returning ${COLUMNS}`,
        [username, walletId, withdraw.enabled, withdraw.maxMsat.toString(), withdraw.budgetMsat.toString()],
      );
      return toAddress(rows[0]!);
    } catch (err) {
      if (sqlState(err) === '23505')
        throw conflict('USERNAME_TAKEN', `username "${username}" belongs to another wallet; choose another`);
      throw err;
    }
  }

  async release(walletId: string): Promise<boolean> {
    const { rowCount } = await this.db.query('delete from lightning_addresses where wallet_id = $1', [walletId]);
    return rowCount > 0;
  }

  async issueK1(username: string): Promise<string> {
    const k1 = randomBytes(32).toString('hex');
    await this.db.query(
      `insert into lnurlw_challenges (k1, username, expires_at) values ($1, $2, now() + make_interval(secs => $3))`,
      [k1, username, K1_TTL_SEC],
    );
    return k1;
  }

  /** Uses up a k1 of this username: true once, false when unknown, used or expired. */
  async consumeK1(username: string, k1: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `update lnurlw_challenges set used_at = now() where k1 = $1 and username = $2 and used_at is null and expires_at > now()`,
      [k1, username],
    );
    return rowCount === 1;
  }

  /** Takes amount out of the withdraw budget if it fits, for the invoice of this (used) k1, atomically;
   * false otherwise. A payment of that invoice from the username's wallet that fails gives it back,
   * whenever it fails (migration 8). */
  async spendBudget(username: string, k1: string, amountMsat: bigint, paymentHash: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `with spent as (
         update lightning_addresses set withdraw_spent_msat = withdraw_spent_msat + $2
           where username = $1 and withdraw_enabled and withdraw_spent_msat + $2 <= withdraw_budget_msat
           returning username)
       update lnurlw_challenges set amount_msat = $2, payment_hash = $4
         where k1 = $3 and username in (select username from spent)`,
      [username, amountMsat.toString(), k1, paymentHash],
    );
    return rowCount === 1;
  }

  /** Gives back the budget of this k1's withdraw, whose payment failed or was never made (once). */
  async returnBudget(username: string, k1: string, paymentHash: string): Promise<void> {
    await this.db.query('select lnurlw_return_budget($1, $2, $3)', [username, paymentHash, k1]);
  }
}
