// Versioned schema migrations, applied in order by migrate.ts. Never edit an applied migration:
// add a new version. Statements are listed one by one because PGlite runs one per query.

export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'users, wallets, ledger, payments, api keys, audit',
    statements: [
      `create table users (
        id uuid primary key,
        pubkey text not null unique,
        bitcoin_address text not null,
        created_at timestamptz not null default now())`,
      `create table wallets (
        id uuid primary key,
        user_id uuid not null references users(id),
        name text not null,
        metadata jsonb,
        archived_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now())`,
      `create index wallets_user on wallets (user_id, id)`,
      // One row per wallet and asset: asset_kind 'btc' (asset_id '', amount in msat) or 'rgb'
      // (asset_id the RGB asset id, amount in the asset's smallest unit).
      `create table balances (
        wallet_id uuid not null references wallets(id),
        asset_kind text not null check (asset_kind in ('btc', 'rgb')),
        asset_id text not null default '',
        amount numeric(39, 0) not null default 0 check (amount >= 0),
        primary key (wallet_id, asset_kind, asset_id))`,
      `create table payments (
        id uuid primary key,
        wallet_id uuid not null references wallets(id),
        direction text not null check (direction in ('in', 'out')),
        kind text not null check (kind in ('invoice', 'pay', 'keysend', 'internal')),
        status text not null check (status in ('pending', 'succeeded', 'failed')),
        payment_hash text,
        bolt11 text,
        preimage text,
        dest_pubkey text,
        description text,
        amount_msat bigint not null default 0 check (amount_msat >= 0),
        fee_msat bigint not null default 0 check (fee_msat >= 0),
        fee_limit_msat bigint not null default 0 check (fee_limit_msat >= 0),
        asset_id text,
        asset_amount numeric(39, 0) check (asset_amount >= 0),
        transfer_id uuid,
        counterparty_wallet_id uuid,
        error text,
        expires_at timestamptz,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        settled_at timestamptz)`,
      `create index payments_wallet on payments (wallet_id, id)`,
      `create index payments_hash on payments (payment_hash)`,
      `create index payments_pending_out on payments (created_at) where status = 'pending' and direction = 'out'`,
      `create table ledger_entries (
        id uuid primary key,
        wallet_id uuid not null references wallets(id),
        asset_kind text not null,
        asset_id text not null,
        delta numeric(39, 0) not null,
        balance_after numeric(39, 0) not null check (balance_after >= 0),
        payment_id uuid references payments(id),
        reason text not null,
        created_at timestamptz not null default now())`,
      `create index ledger_entries_wallet on ledger_entries (wallet_id, id)`,
      `create table api_keys (
        id uuid primary key,
        user_id uuid not null references users(id),
        name text not null,
        scope text not null check (scope in ('read', 'invoice', 'full')),
        wallet_id uuid references wallets(id),
        key_hash text not null unique,
        expires_at timestamptz,
        revoked_at timestamptz,
        created_at timestamptz not null default now(),
        last_used_at timestamptz)`,
      `create table audit_log (
        id uuid primary key,
        user_id uuid,
        action text not null,
        target_type text,
        target_id text,
        details jsonb,
        ip text,
        created_at timestamptz not null default now())`,
    ],
  },
  {
    version: 2,
    name: 'lightning: one live outgoing payment per hash, lightning addresses, LNURL-withdraw challenges',
    statements: [
      // The node knows one payment per hash: two live outgoing records for one hash could both be
      // settled from the node's single answer. Failed ones may be retried.
      `create unique index payments_out_hash_live on payments (payment_hash)
        where direction = 'out' and status <> 'failed' and payment_hash is not null`,
      `create unique index payments_in_invoice_hash on payments (payment_hash)
        where direction = 'in' and kind = 'invoice' and payment_hash is not null`,
      `create table lightning_addresses (
        username text primary key,
        wallet_id uuid not null unique references wallets(id),
        withdraw_enabled boolean not null default false,
        withdraw_max_msat bigint not null default 0 check (withdraw_max_msat >= 0),
        withdraw_budget_msat bigint not null default 0 check (withdraw_budget_msat >= 0),
        withdraw_spent_msat bigint not null default 0 check (withdraw_spent_msat >= 0),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now())`,
      `create table lnurlw_challenges (
        k1 text primary key,
        username text not null references lightning_addresses(username) on delete cascade on update cascade,
        expires_at timestamptz not null,
        used_at timestamptz)`,
    ],
  },
];
