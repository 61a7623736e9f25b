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
  {
    version: 3,
    name: 'ledger_transfer: an internal transfer in one statement',
    statements: [
      // The hot path of POST /payments/internal in one round trip: checks (owner, not archived),
      // two payments, two balance changes each with its ledger entry (rows locked in wallet-id
      // order, so opposite transfers cannot deadlock; the debit is conditional, so no overdraft)
      // and the audit row. Errors are raised with SQLSTATE P0001 and the error code as message,
      // the wallet id as detail. Must stay equivalent to applyDelta in src/ledger/ledger.ts.
      `create or replace function ledger_transfer(
         p_from uuid, p_to uuid, p_user uuid, p_kind text, p_asset text, p_amount numeric,
         p_ids uuid[], p_audit jsonb)
       returns setof payments language plpgsql as $fn$
       declare
         w record;
         found_count int := 0;
         v_wallet uuid;
         v_delta numeric;
         v_payment uuid;
         v_entry uuid;
         v_after numeric;
         is_btc boolean := p_kind = 'btc';
       begin
         for w in select id, user_id, archived_at from wallets where id in (p_from, p_to) order by id for share loop
           if p_user is not null and w.user_id <> p_user then
             raise exception using errcode = 'P0001', message = 'WALLET_NOT_FOUND', detail = w.id::text;
           end if;
           if w.archived_at is not null then
             raise exception using errcode = 'P0001', message = 'WALLET_ARCHIVED', detail = w.id::text;
           end if;
           found_count := found_count + 1;
         end loop;
         if found_count < 2 then
           raise exception using errcode = 'P0001', message = 'WALLET_NOT_FOUND',
             detail = (case when exists (select 1 from wallets where id = p_from) then p_to else p_from end)::text;
         end if;
         insert into payments (id, wallet_id, direction, kind, status, amount_msat, asset_id, asset_amount,
             transfer_id, counterparty_wallet_id, settled_at)
           values
             (p_ids[1], p_from, 'out', 'internal', 'succeeded', case when is_btc then p_amount else 0 end,
              case when is_btc then null else p_asset end, case when is_btc then null else p_amount end, p_ids[3], p_to, now()),
             (p_ids[2], p_to, 'in', 'internal', 'succeeded', case when is_btc then p_amount else 0 end,
              case when is_btc then null else p_asset end, case when is_btc then null else p_amount end, p_ids[3], p_from, now());
         for i in 1..2 loop
           -- lower wallet id first
           if (i = 1) = (p_from < p_to) then
             v_wallet := p_from; v_delta := -p_amount; v_payment := p_ids[1]; v_entry := p_ids[4];
             update balances set amount = amount + v_delta
               where wallet_id = v_wallet and asset_kind = p_kind and asset_id = p_asset and amount + v_delta >= 0
               returning amount into v_after;
             if not found then
               raise exception using errcode = 'P0001', message = 'INSUFFICIENT_FUNDS', detail = p_from::text;
             end if;
           else
             v_wallet := p_to; v_delta := p_amount; v_payment := p_ids[2]; v_entry := p_ids[5];
             insert into balances (wallet_id, asset_kind, asset_id, amount) values (v_wallet, p_kind, p_asset, v_delta)
               on conflict (wallet_id, asset_kind, asset_id) do update set amount = balances.amount + excluded.amount
               returning amount into v_after;
           end if;
           insert into ledger_entries (id, wallet_id, asset_kind, asset_id, delta, balance_after, payment_id, reason)
             values (v_entry, v_wallet, p_kind, p_asset, v_delta, v_after, v_payment,
                     case when v_delta < 0 then 'transfer_out' else 'transfer_in' end);
         end loop;
         if p_audit is not null then
           insert into audit_log (id, user_id, action, target_type, target_id, details, ip)
             values ((p_audit->>'id')::uuid, (p_audit->>'user_id')::uuid, p_audit->>'action', p_audit->>'target_type',
                     p_audit->>'target_id', p_audit->'details', p_audit->>'ip');
         end if;
         return query select * from payments where id in (p_ids[1], p_ids[2]) order by direction desc;
       end
       $fn$`,
    ],
  },
  {
    version: 4,
    name: 'ledger_transfer returns the payments it inserts instead of reading them back',
    statements: [
      // Version 3 ended with "select * from payments where id in (p_ids[1], p_ids[2])". PL/pgSQL
      // caches that plan per connection, and after five calls it may keep a generic plan chosen
      // while payments was a page or two: a sequential scan of a table that grows with every
      // transfer (each connection keeps whichever plan it got, so throughput was bimodal). The
      // INSERT ... RETURNING gives the same rows without reading the table.
      `create or replace function ledger_transfer(
         p_from uuid, p_to uuid, p_user uuid, p_kind text, p_asset text, p_amount numeric,
         p_ids uuid[], p_audit jsonb)
       returns setof payments language plpgsql as $fn$
       declare
         w record;
         found_count int := 0;
         v_wallet uuid;
         v_delta numeric;
         v_payment uuid;
         v_entry uuid;
         v_after numeric;
         is_btc boolean := p_kind = 'btc';
       begin
         for w in select id, user_id, archived_at from wallets where id in (p_from, p_to) order by id for share loop
           if p_user is not null and w.user_id <> p_user then
             raise exception using errcode = 'P0001', message = 'WALLET_NOT_FOUND', detail = w.id::text;
           end if;
           if w.archived_at is not null then
             raise exception using errcode = 'P0001', message = 'WALLET_ARCHIVED', detail = w.id::text;
           end if;
           found_count := found_count + 1;
         end loop;
         if found_count < 2 then
           raise exception using errcode = 'P0001', message = 'WALLET_NOT_FOUND',
             detail = (case when exists (select 1 from wallets where id = p_from) then p_to else p_from end)::text;
         end if;
         -- The two payments are returned as inserted (nothing below changes them): no second read.
         return query with ins as (
           insert into payments (id, wallet_id, direction, kind, status, amount_msat, asset_id, asset_amount,
               transfer_id, counterparty_wallet_id, settled_at)
             values
               (p_ids[1], p_from, 'out', 'internal', 'succeeded', case when is_btc then p_amount else 0 end,
                case when is_btc then null else p_asset end, case when is_btc then null else p_amount end, p_ids[3], p_to, now()),
               (p_ids[2], p_to, 'in', 'internal', 'succeeded', case when is_btc then p_amount else 0 end,
                case when is_btc then null else p_asset end, case when is_btc then null else p_amount end, p_ids[3], p_from, now())
             returning *)
           select * from ins order by direction desc;
         for i in 1..2 loop
           -- lower wallet id first
           if (i = 1) = (p_from < p_to) then
             v_wallet := p_from; v_delta := -p_amount; v_payment := p_ids[1]; v_entry := p_ids[4];
             update balances set amount = amount + v_delta
               where wallet_id = v_wallet and asset_kind = p_kind and asset_id = p_asset and amount + v_delta >= 0
               returning amount into v_after;
             if not found then
               raise exception using errcode = 'P0001', message = 'INSUFFICIENT_FUNDS', detail = p_from::text;
             end if;
           else
             v_wallet := p_to; v_delta := p_amount; v_payment := p_ids[2]; v_entry := p_ids[5];
             insert into balances (wallet_id, asset_kind, asset_id, amount) values (v_wallet, p_kind, p_asset, v_delta)
               on conflict (wallet_id, asset_kind, asset_id) do update set amount = balances.amount + excluded.amount
               returning amount into v_after;
           end if;
           insert into ledger_entries (id, wallet_id, asset_kind, asset_id, delta, balance_after, payment_id, reason)
             values (v_entry, v_wallet, p_kind, p_asset, v_delta, v_after, v_payment,
                     case when v_delta < 0 then 'transfer_out' else 'transfer_in' end);
         end loop;
         if p_audit is not null then
           insert into audit_log (id, user_id, action, target_type, target_id, details, ip)
             values ((p_audit->>'id')::uuid, (p_audit->>'user_id')::uuid, p_audit->>'action', p_audit->>'target_type',
                     p_audit->>'target_id', p_audit->'details', p_audit->>'ip');
         end if;
       end
       $fn$`,
    ],
  },
  {
    version: 5,
    name: 'node invoice cancels: the outbox of invoices paid internally whose node invoice must be cancelled',
    statements: [
      // Written in the transaction that pays an invoice internally; the lightning side's cancel
      // worker cancels the node invoice off the request path and closes the row with what the
      // node said: 'closed' (cancelled, or expired where the node cannot cancel), 'paid_on_node'
      // (someone outside paid it before the cancel landed; that payment is credited to the payee
      // as its own record in the transaction that closes the row) or 'unknown_to_node'. Rows with
      // done_at null are resumed at start.
      `create table node_invoice_cancels (
        payment_hash text primary key,
        invoice_payment_id uuid not null references payments(id),
        created_at timestamptz not null default now(),
        done_at timestamptz,
        outcome text check (outcome in ('closed', 'paid_on_node', 'unknown_to_node')),
        check ((done_at is null) = (outcome is null)))`,
      `create index node_invoice_cancels_pending on node_invoice_cancels (created_at) where done_at is null`,
      // One node invoice per hash, as before, but an invoice paid internally (transfer_id set) no
      // longer holds the hash: a payment of the same node invoice from outside, made before the
      // cancel landed, is recorded as a second incoming invoice payment with that hash.
      `drop index payments_in_invoice_hash`,
      `create unique index payments_in_invoice_hash on payments (payment_hash)
        where direction = 'in' and kind = 'invoice' and payment_hash is not null and transfer_id is null`,
    ],
  },
  {
    version: 6,
    name: 'ledger_pay_invoice: an invoice of another wallet paid internally in one statement',
    statements: [
      // The internal half of POST /payments/pay in one round trip (it was ten): the invoice row
      // locked and checked (an invoice, not the payer's own, pending, not expired), the two wallets
      // share-locked and checked, the payer's 'pay' record, each leg (msat, and the RGB asset if
      // any) debited from the payer (conditionally: no overdraft) and credited to the payee with
      // its ledger entry, balance rows in wallet-id order (so opposite payments cannot deadlock),
      // the invoice marked paid, its node_invoice_cancels row and the audit row. Errors: SQLSTATE
      // P0001, the error code as message; the detail is the wallet id (WALLET_*), the invoice id
      // (PAYMENT_NOT_FOUND) or what the invoice asks (INSUFFICIENT_FUNDS). Returns the payer's
      // record, then the invoice. Must stay equivalent to applyDelta in src/ledger/ledger.ts.
      `create or replace function ledger_pay_invoice(p_payer uuid, p_invoice uuid, p_ids uuid[], p_audit jsonb)
       returns setof payments language plpgsql as $fn$
       declare
         inv payments%rowtype;
         paid payments%rowtype;
         w record;
         found_count int := 0;
         legs text[][];
         v_wallet uuid;
         v_delta numeric;
         v_after numeric;
         v_entry int := 3;
       begin
         select * into inv from payments where id = p_invoice for update;
         if not found then
           raise exception using errcode = 'P0001', message = 'PAYMENT_NOT_FOUND', detail = p_invoice::text;
         end if;
         if inv.direction <> 'in' or inv.kind <> 'invoice' then
           raise exception using errcode = 'P0001', message = 'NOT_AN_INVOICE', detail = p_invoice::text;
         end if;
         if inv.wallet_id = p_payer then
           raise exception using errcode = 'P0001', message = 'SELF_PAYMENT';
         end if;
         if inv.status = 'succeeded' then
           raise exception using errcode = 'P0001', message = 'INVOICE_ALREADY_PAID';
         end if;
         if inv.status = 'failed' or inv.expires_at <= now() then
           raise exception using errcode = 'P0001', message = 'INVOICE_EXPIRED';
         end if;
         for w in select id, archived_at from wallets where id in (p_payer, inv.wallet_id) order by id for share loop
           if w.archived_at is not null then
             raise exception using errcode = 'P0001', message = 'WALLET_ARCHIVED', detail = w.id::text;
           end if;
           found_count := found_count + 1;
         end loop;
         if found_count < 2 then
           raise exception using errcode = 'P0001', message = 'WALLET_NOT_FOUND',
             detail = (case when exists (select 1 from wallets where id = p_payer) then inv.wallet_id else p_payer end)::text;
         end if;
         return query with ins as (
           insert into payments (id, wallet_id, direction, kind, status, payment_hash, bolt11, description,
               amount_msat, asset_id, asset_amount, transfer_id, counterparty_wallet_id, settled_at)
             values (p_ids[1], p_payer, 'out', 'pay', 'succeeded', inv.payment_hash, inv.bolt11, inv.description,
               inv.amount_msat, inv.asset_id, inv.asset_amount, p_ids[2], inv.wallet_id, now())
             returning *)
           select * from ins;
         -- (asset_kind, asset_id, amount) of each leg that moves something
         legs := array[['btc', '', inv.amount_msat::text]];
         if inv.asset_id is not null and inv.asset_amount > 0 then
           legs := legs || array[['rgb', inv.asset_id, inv.asset_amount::text]];
         end if;
         for i in 1..2 loop
           -- lower wallet id first
           v_wallet := case when (i = 1) = (p_payer < inv.wallet_id) then p_payer else inv.wallet_id end;
           for l in 1..array_length(legs, 1) loop
             continue when legs[l][3]::numeric = 0;
             if v_wallet = p_payer then
               v_delta := -legs[l][3]::numeric;
               update balances set amount = amount + v_delta
                 where wallet_id = v_wallet and asset_kind = legs[l][1] and asset_id = legs[l][2] and amount + v_delta >= 0
                 returning amount into v_after;
               if not found then
                 raise exception using errcode = 'P0001', message = 'INSUFFICIENT_FUNDS',
                   detail = inv.amount_msat || ' msat' || coalesce(' and ' || inv.asset_amount || ' of ' || inv.asset_id, '');
               end if;
             else
               v_delta := legs[l][3]::numeric;
               insert into balances (wallet_id, asset_kind, asset_id, amount) values (v_wallet, legs[l][1], legs[l][2], v_delta)
                 on conflict (wallet_id, asset_kind, asset_id) do update set amount = balances.amount + excluded.amount
                 returning amount into v_after;
             end if;
             insert into ledger_entries (id, wallet_id, asset_kind, asset_id, delta, balance_after, payment_id, reason)
               values (p_ids[v_entry], v_wallet, legs[l][1], legs[l][2], v_delta, v_after,
                       case when v_delta < 0 then p_ids[1] else inv.id end,
                       case when v_delta < 0 then 'transfer_out' else 'transfer_in' end);
             v_entry := v_entry + 1;
           end loop;
         end loop;
         update payments set status = 'succeeded', error = null, transfer_id = p_ids[2], counterparty_wallet_id = p_payer,
             updated_at = now(), settled_at = now()
           where id = inv.id returning * into paid;
         if inv.payment_hash is not null then
           insert into node_invoice_cancels (payment_hash, invoice_payment_id) values (inv.payment_hash, inv.id);
         end if;
         if p_audit is not null then
           insert into audit_log (id, user_id, action, target_type, target_id, details, ip)
             values ((p_audit->>'id')::uuid, (p_audit->>'user_id')::uuid, p_audit->>'action', p_audit->>'target_type',
                     p_audit->>'target_id', p_audit->'details', p_audit->>'ip');
         end if;
         return next paid;
       end
       $fn$`,
    ],
  },
  {
    version: 7,
    name: 'idempotency keys of pay, keysend and internal transfer',
    statements: [
      // One row per key of a user: the request it was given to (route and fingerprint of wallet and
      // body) and the id of what that request made (the payment of a pay or keysend, the transfer of
      // an internal transfer), written in the transaction that made it (idempotency/keys.ts).
      `create table idempotency_keys (
        user_id uuid not null references users(id),
        key text not null,
        route text not null,
        fingerprint text not null,
        made_id uuid,
        created_at timestamptz not null default now(),
        primary key (user_id, key))`,
      // a transfer sent again is answered by its two payments
      `create index payments_transfer on payments (transfer_id) where transfer_id is not null`,
    ],
  },
  {
    version: 8,
    name: 'LNURL-withdraw: the budget of a withdraw whose payment fails comes back, whenever it fails',
    statements: [
      // What a k1's withdraw took from the budget, and whether it came back: a withdraw still pending
      // when its callback answers may be failed later (by the node's answer, or the reconcile after
      // a restart), by whichever process then runs.
      `alter table lnurlw_challenges add column payment_hash text, add column amount_msat bigint,
        add column budget_returned boolean not null default false`,
      `create index lnurlw_challenges_payment on lnurlw_challenges (payment_hash) where payment_hash is not null`,
      // Gives back the budget the k1s of this username took for this payment hash, each once.
      `create or replace function lnurlw_return_budget(p_username text, p_payment_hash text, p_k1 text)
       returns void language plpgsql as $fn$
       begin
         with back as (
           update lnurlw_challenges set budget_returned = true
             where username = p_username and payment_hash = p_payment_hash and (p_k1 is null or k1 = p_k1)
               and not budget_returned
             returning amount_msat)
         update lightning_addresses set withdraw_spent_msat = greatest(withdraw_spent_msat - (select sum(amount_msat) from back), 0),
             updated_at = now()
           where username = p_username and exists (select 1 from back);
       end
       $fn$`,
      // An outgoing payment failing gives back what LNURL-withdraws of its wallet took for its hash.
      `create or replace function lnurlw_budget_of_failed_payment() returns trigger language plpgsql as $fn$
       begin
         perform lnurlw_return_budget(a.username, new.payment_hash, null)
           from lightning_addresses a where a.wallet_id = new.wallet_id;
         return null;
       end
       $fn$`,
      `create trigger payments_failed_lnurlw_budget after update of status on payments
       for each row when (new.status = 'failed' and old.status <> 'failed' and new.direction = 'out'
         and new.payment_hash is not null)
       execute function lnurlw_budget_of_failed_payment()`,
    ],
  },
];
