import type { Queryable } from '../db/db.js';
import { invalid } from '../errors.js';
import { newId } from '../ids.js';
import type { Balance } from '../ledger/index.js';

export interface Wallet {
  id: string;
  user_id: string;
  name: string;
  metadata: unknown;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id::text, user_id::text, name, metadata, archived_at, created_at, updated_at';
/** The same columns of a query that names the wallets table `w`. */
const W_COLUMNS = COLUMNS.replace(/(^|, )/g, '$1w.');

export async function createWallet(q: Queryable, userId: string, name: string, metadata: unknown): Promise<Wallet> {
  const { rows } = await q.query<Wallet>(
    `insert into wallets (id, user_id, name, metadata) values ($1, $2, $3, $4) returning ${COLUMNS}`,
    [newId(), userId, name, metadata === undefined || metadata === null ? null : JSON.stringify(metadata)],
  );
  return rows[0]!;
}

/** The user's existence and, in the same round trip, the wallet walletId if it is theirs: null when
 * the user is not in this database, `{ wallet: null }` when the wallet is not theirs or not there. */
export async function findUserWithOwnedWallet(
  q: Queryable,
  userId: string,
  walletId: string,
): Promise<{ wallet: Wallet | null } | null> {
  const { rows } = await q.query<Wallet & { user_found: string }>(
    `select u.id::text as user_found, ${W_COLUMNS}
     from users u left join wallets w on w.id = $2 and w.user_id = u.id where u.id = $1`,
    [userId, walletId],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.id === null) return { wallet: null };
  const { user_found: _, ...wallet } = row;
  return { wallet };
}

/** The wallet if it exists and belongs to userId; null otherwise (callers answer 404 either way). */
export async function findOwnedWallet(q: Queryable, userId: string, id: string): Promise<Wallet | null> {
  const { rows } = await q.query<Wallet>(`select ${COLUMNS} from wallets where id = $1 and user_id = $2`, [id, userId]);
  return rows[0] ?? null;
}

export async function listWallets(
  q: Queryable,
  userId: string,
  opts: { includeArchived: boolean; onlyId: string | null },
): Promise<Wallet[]> {
  const { rows } = await q.query<Wallet>(
    `select ${COLUMNS} from wallets where user_id = $1 and ($2 or archived_at is null) and ($3::uuid is null or id = $3)
     order by id`,
    [userId, opts.includeArchived, opts.onlyId],
  );
  return rows;
}

export async function updateWallet(
  q: Queryable,
  id: string,
  patch: { name?: string | null; metadata?: unknown },
): Promise<Wallet> {
  const { rows } = await q.query<Wallet>(
    `update wallets set name = coalesce($2, name),
       metadata = case when $3 then $4::jsonb else metadata end, updated_at = now()
     where id = $1 returning ${COLUMNS}`,
    [
      id,
      patch.name ?? null,
      'metadata' in patch,
      patch.metadata === undefined || patch.metadata === null ? null : JSON.stringify(patch.metadata),
    ],
  );
  return rows[0]!;
}

/** Archives only when every balance (BTC and each RGB asset) is zero and no outgoing payment is
 * pending. The wallet row is locked exclusively and reservations and transfers share-lock it, so
 * none can land between check and archive. (A payment that already exists is still settled or
 * credited: the node's answer wins.) */
export async function archiveWallet(tx: Queryable, id: string): Promise<Wallet> {
  await tx.query('select 1 from wallets where id = $1 for update', [id]);
  const { rows: nonZero } = await tx.query<{ asset_kind: string; asset_id: string; amount: string }>(
    `select asset_kind, asset_id, amount::text from balances where wallet_id = $1 and amount <> 0`,
    [id],
  );
  if (nonZero.length > 0) {
    const list = nonZero
      .map((b) => (b.asset_kind === 'btc' ? `${b.amount} msat` : `${b.amount} of ${b.asset_id}`))
      .join(', ');
    throw invalid('BALANCE_NOT_ZERO', `wallet balance is not zero (${list}); move the funds out first`);
  }
  // A pending outgoing payment may still be refunded into the wallet.
  const { rowCount: pending } = await tx.query(
    `select 1 from payments where wallet_id = $1 and direction = 'out' and status = 'pending' limit 1`,
    [id],
  );
  if (pending > 0)
    throw invalid(
      'PAYMENTS_PENDING',
      'an outgoing payment of this wallet is still pending; archive it once it has settled or failed',
    );
  const { rows } = await tx.query<Wallet>(
    `update wallets set archived_at = coalesce(archived_at, now()), updated_at = now() where id = $1 returning ${COLUMNS}`,
    [id],
  );
  return rows[0]!;
}

export function walletJson(w: Wallet, balances: Balance[]) {
  return {
    id: w.id,
    name: w.name,
    metadata: w.metadata ?? null,
    archived: w.archived_at !== null,
    archived_at: w.archived_at ? new Date(w.archived_at).toISOString() : null,
    balance_msat: (balances.find((b) => b.assetKind === 'btc')?.amount ?? 0n).toString(),
    assets: balances
      .filter((b) => b.assetKind === 'rgb')
      .map((b) => ({ asset_id: b.assetId, amount: b.amount.toString() })),
    created_at: new Date(w.created_at).toISOString(),
    updated_at: new Date(w.updated_at).toISOString(),
  };
}
