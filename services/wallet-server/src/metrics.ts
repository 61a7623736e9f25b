// The wallet server's own metrics, read from its database when a scrape asks (the ledger is the
// truth): payments by direction, kind and status with their amounts, the balances held, and the
// ledger's entries by reason. Beside them, GET /metrics serves its requests by route and status
// (lib/http/metrics.ts).
import { Gauge, type Registry } from 'prom-client';
import type { Db } from './db/db.js';

/** A gauge set from one query's rows at each scrape: `labels` of each row, and its `value` column. */
function queriedGauge(
  registry: Registry,
  db: Db,
  metric: { name: string; help: string; labelNames: string[] },
  sql: string,
): void {
  new Gauge({
    ...metric,
    registers: [registry],
    async collect() {
      const { rows } = await db.query<Record<string, string>>(sql);
      this.reset();
      for (const { value, ...labels } of rows) this.set(labels, Number(value));
    },
  });
}

export function walletServerMetrics(registry: Registry, db: Db): void {
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_payments',
      help: 'Payments recorded, by direction (in, out), kind (invoice, pay, keysend, internal) and status (pending, succeeded, failed)',
      labelNames: ['direction', 'kind', 'status'],
    },
    'select direction, kind, status, count(*)::text as value from payments group by direction, kind, status',
  );
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_payments_msat',
      help: 'The amounts in msat of the payments recorded, by direction, kind and status',
      labelNames: ['direction', 'kind', 'status'],
    },
    'select direction, kind, status, sum(amount_msat)::text as value from payments group by direction, kind, status',
  );
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_fees_msat',
      help: 'Routing fees in msat of the outgoing payments that succeeded',
      labelNames: [],
    },
    `select coalesce(sum(fee_msat), 0)::text as value from payments where direction = 'out' and status = 'succeeded'`,
  );
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_balances',
      help: "What the wallets hold, by asset: btc in msat, an RGB asset (its id) in the asset's smallest unit",
      labelNames: ['asset'],
    },
    `select case when asset_kind = 'btc' then 'btc' else asset_id end as asset, sum(amount)::text as value
     from balances group by asset_kind, asset_id`,
  );
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_ledger_entries',
      help: 'Ledger entries by reason (reserve, settle, refund, credit, transfer_out, transfer_in)',
      labelNames: ['reason'],
    },
    'select reason, count(*)::text as value from ledger_entries group by reason',
  );
  queriedGauge(
    registry,
    db,
    {
      name: 'wallet_server_ledger_delta',
      help: "The sum of the ledger's entries by reason and asset (btc in msat): every balance change the ledger holds",
      labelNames: ['reason', 'asset'],
    },
    `select reason, case when asset_kind = 'btc' then 'btc' else asset_id end as asset, sum(delta)::text as value
     from ledger_entries group by reason, asset_kind, asset_id`,
  );
  queriedGauge(
    registry,
    db,
    { name: 'wallet_server_wallets', help: 'Wallets, by state (active, archived)', labelNames: ['state'] },
    `select case when archived_at is null then 'active' else 'archived' end as state, count(*)::text as value
     from wallets group by 1`,
  );
}
