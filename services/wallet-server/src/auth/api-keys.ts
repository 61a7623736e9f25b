import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import { newId } from '../ids.js';
import type { Scope } from './principal.js';

/** Key secrets look like `rlk_<64 hex>`; only their sha256 is stored. */
export const API_KEY_PREFIX = 'rlk_';
const hashKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface ApiKey {
  id: string;
  user_id: string;
  name: string;
  scope: Scope;
  wallet_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS =
  'id::text, user_id::text, name, scope, wallet_id::text, expires_at, revoked_at, created_at, last_used_at';

export async function createApiKey(
  q: Queryable,
  input: { userId: string; name: string; scope: Scope; walletId: string | null; expiresAt: Date | null },
): Promise<{ key: ApiKey; secret: string }> {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('hex');
  const { rows } = await q.query<ApiKey>(
    `insert into api_keys (id, user_id, name, scope, wallet_id, key_hash, expires_at) values ($1, $2, $3, $4, $5, $6, $7)
     returning ${COLUMNS}`,
    [newId(), input.userId, input.name, input.scope, input.walletId, hashKey(secret), input.expiresAt],
  );
  return { key: rows[0]!, secret };
}

/** The active (not revoked, not expired) key with this secret, with its owner's pubkey. Marks it
 * used in the same round trip, at most once a minute so busy keys do not write on every request. */
export async function findActiveApiKey(q: Queryable, secret: string): Promise<(ApiKey & { pubkey: string }) | null> {
  const { rows } = await q.query<ApiKey & { pubkey: string }>(
    `with k as (
       select k.*, u.pubkey from api_keys k join users u on u.id = k.user_id
       where k.key_hash = $1 and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())),
     used as (
       update api_keys set last_used_at = now()
       where id = (select id from k) and (last_used_at is null or last_used_at < now() - interval '1 minute'))
     select ${COLUMNS}, pubkey from k`,
    [hashKey(secret)],
  );
  return rows[0] ?? null;
}

/** Null when this user has no key with that id. Revoking twice keeps the first revocation time. */
export async function revokeApiKey(q: Queryable, userId: string, id: string): Promise<ApiKey | null> {
  const { rows } = await q.query<ApiKey>(
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 and user_id = $2 returning ${COLUMNS}`,
    [id, userId],
  );
  return rows[0] ?? null;
}

export const apiKeyJson = (k: ApiKey) => ({
  id: k.id,
  name: k.name,
  scope: k.scope,
  wallet_id: k.wallet_id,
  expires_at: k.expires_at ? new Date(k.expires_at).toISOString() : null,
  revoked_at: k.revoked_at ? new Date(k.revoked_at).toISOString() : null,
  created_at: new Date(k.created_at).toISOString(),
  last_used_at: k.last_used_at ? new Date(k.last_used_at).toISOString() : null,
});
