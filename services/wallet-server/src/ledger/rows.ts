import type { Payment } from './types.js';

// Amount columns are selected as text so node-postgres and PGlite hand back the same type.
export const PAYMENT_COLUMNS = `id::text, wallet_id::text, direction, kind, status, payment_hash, bolt11, preimage,
  dest_pubkey, description, amount_msat::text, fee_msat::text, fee_limit_msat::text, asset_id,
  asset_amount::text, transfer_id::text, counterparty_wallet_id::text, error, expires_at, created_at,
  updated_at, settled_at`;

export interface PaymentRow {
  id: string;
  wallet_id: string;
  direction: Payment['direction'];
  kind: Payment['kind'];
  status: Payment['status'];
  payment_hash: string | null;
  bolt11: string | null;
  preimage: string | null;
  dest_pubkey: string | null;
  description: string | null;
  amount_msat: string;
  fee_msat: string;
  fee_limit_msat: string;
  asset_id: string | null;
  asset_amount: string | null;
  transfer_id: string | null;
  counterparty_wallet_id: string | null;
  error: string | null;
  expires_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  settled_at: Date | string | null;
}

const date = (v: Date | string) => (v instanceof Date ? v : new Date(v));
const maybeDate = (v: Date | string | null) => (v === null ? null : date(v));

export function toPayment(r: PaymentRow): Payment {
  return {
    id: r.id,
    walletId: r.wallet_id,
    direction: r.direction,
    kind: r.kind,
    status: r.status,
    paymentHash: r.payment_hash,
    bolt11: r.bolt11,
    preimage: r.preimage,
    destPubkey: r.dest_pubkey,
    description: r.description,
    amountMsat: BigInt(r.amount_msat),
    feeMsat: BigInt(r.fee_msat),
    feeLimitMsat: BigInt(r.fee_limit_msat),
    assetId: r.asset_id,
    assetAmount: r.asset_amount === null ? null : BigInt(r.asset_amount),
    transferId: r.transfer_id,
    counterpartyWalletId: r.counterparty_wallet_id,
    error: r.error,
    expiresAt: maybeDate(r.expires_at),
    createdAt: date(r.created_at),
    updatedAt: date(r.updated_at),
    settledAt: maybeDate(r.settled_at),
  };
}
