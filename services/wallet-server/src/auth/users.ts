import type { Queryable } from '../db/db.js';

export interface User {
  id: string;
  pubkey: string;
  bitcoin_address: string;
  created_at: Date;
}

export async function findUserByPubkey(q: Queryable, pubkey: string): Promise<User | null> {
  const { rows } = await q.query<User>(
    'select id::text, pubkey, bitcoin_address, created_at from users where pubkey = $1',
    [pubkey],
  );
  return rows[0] ?? null;
}

export async function findUserById(q: Queryable, id: string): Promise<User | null> {
  const { rows } = await q.query<User>(
    'select id::text, pubkey, bitcoin_address, created_at from users where id = $1',
    [id],
  );
  return rows[0] ?? null;
}

/** Null when the pubkey is already enrolled. */
export async function insertUser(q: Queryable, id: string, pubkey: string, address: string): Promise<User | null> {
  const { rows } = await q.query<User>(
    `insert into users (id, pubkey, bitcoin_address) values ($1, $2, $3) on conflict (pubkey) do nothing
     returning id::text, pubkey, bitcoin_address, created_at`,
    [id, pubkey, address],
  );
  return rows[0] ?? null;
}

export const userJson = (u: User, isAdmin: boolean) => ({
  id: u.id,
  pubkey: u.pubkey,
  bitcoin_address: u.bitcoin_address,
  is_admin: isAdmin,
  created_at: new Date(u.created_at).toISOString(),
});
