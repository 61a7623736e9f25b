// The Idempotency-Key of the routes that move money (POST /payments/pay, /payments/keysend,
// /payments/internal), kept in Postgres per user. A key is taken in the same transaction that makes
// its payment or transfer, so a request has either made its payment and holds its key, or done
// neither (a refused request leaves the key free); a restart changes nothing.
import { type Db, joinTransaction } from '../db/db.js';
import { conflict } from '../errors.js';
import { Ledger } from '../ledger/index.js';

/** How long a key answers for its request, as the control plane keeps its jobs' keys. */
const KEPT = `interval '1 day'`;

/** A request's key: whose it is, the route it was sent to and the fingerprint of what it asked. */
export interface KeyClaim {
  userId: string;
  key: string;
  route: string;
  fingerprint: string;
}

/** Another request took the key first (it committed while this one waited for it). */
export class KeyTaken extends Error {
  constructor() {
    super('the idempotency key was taken by another request');
    this.name = 'KeyTaken';
  }
}

interface KeyRow {
  route: string;
  fingerprint: string;
  made_id: string | null;
}

export class IdempotencyKeys {
  constructor(
    private readonly db: Db,
    private readonly ledger: Ledger,
  ) {}

  /** The id of what the earlier request with this key made (its payment or transfer: the route
   * knows which), or null when the key is free; 409 when the key was given to another request. */
  async earlier(claim: KeyClaim): Promise<string | null> {
    const { rows } = await this.db.query<KeyRow>(
      `select route, fingerprint, made_id::text from idempotency_keys
       where user_id = $1 and key = $2 and created_at > now() - ${KEPT}`,
      [claim.userId, claim.key],
    );
    const row = rows[0];
    if (!row) return null;
    if (row.route !== claim.route || row.fingerprint !== claim.fingerprint) {
      throw conflict(
        'IDEMPOTENCY_KEY_REUSED',
        `the Idempotency-Key "${claim.key}" was given to another request (${row.route}${row.route === claim.route ? ' with another wallet or body' : ''}): give each new request a key of its own`,
      );
    }
    return row.made_id;
  }

  /**
   * Makes a payment or transfer with `make`, on a ledger inside one transaction that takes the
   * key first and records what was made; KeyTaken when another request holds the key. Without a
   * claim, `make` runs on the ledger as it is.
   */
  async record<T>(
    claim: KeyClaim | undefined,
    make: (ledger: Ledger) => Promise<T>,
    idOf: (made: T) => string,
  ): Promise<T> {
    if (!claim) return make(this.ledger);
    return this.db.transaction(async (tx) => {
      // A second request with the key waits here until the first's transaction ends: it takes the
      // key if the first was rolled back (refused), else finds it taken.
      const { rowCount } = await tx.query(
        `insert into idempotency_keys (user_id, key, route, fingerprint) values ($1, $2, $3, $4)
         on conflict (user_id, key) do update set route = excluded.route, fingerprint = excluded.fingerprint,
           made_id = null, created_at = now()
         where idempotency_keys.created_at <= now() - ${KEPT}`,
        [claim.userId, claim.key, claim.route, claim.fingerprint],
      );
      if (rowCount !== 1) throw new KeyTaken();
      const made = await make(new Ledger(joinTransaction(tx, this.db.kind)));
      await tx.query('update idempotency_keys set made_id = $3 where user_id = $1 and key = $2', [
        claim.userId,
        claim.key,
        idOf(made),
      ]);
      return made;
    });
  }
}
