import type { Payment } from './types.js';

/** The payment record as every route returns it (amounts as decimal strings, times RFC 3339). */
export function paymentJson(p: Payment) {
  return {
    id: p.id,
    wallet_id: p.walletId,
    direction: p.direction,
    kind: p.kind,
    status: p.status,
    payment_hash: p.paymentHash,
    bolt11: p.bolt11,
    preimage: p.preimage,
    dest_pubkey: p.destPubkey,
    description: p.description,
    amount_msat: p.amountMsat.toString(),
    fee_msat: p.feeMsat.toString(),
    asset_id: p.assetId,
    asset_amount: p.assetAmount?.toString() ?? null,
    transfer_id: p.transferId,
    counterparty_wallet_id: p.counterpartyWalletId,
    error: p.error,
    expires_at: p.expiresAt?.toISOString() ?? null,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    settled_at: p.settledAt?.toISOString() ?? null,
  };
}

const str = { type: 'string' } as const;
const nstr = { type: ['string', 'null'] } as const;

export const paymentSchema = {
  type: 'object',
  properties: {
    id: str,
    wallet_id: str,
    direction: { type: 'string', enum: ['in', 'out'] },
    kind: { type: 'string', enum: ['invoice', 'pay', 'keysend', 'internal'] },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    payment_hash: nstr,
    bolt11: nstr,
    preimage: nstr,
    dest_pubkey: nstr,
    description: nstr,
    amount_msat: str,
    fee_msat: str,
    asset_id: nstr,
    asset_amount: nstr,
    transfer_id: nstr,
    counterparty_wallet_id: nstr,
    error: nstr,
    expires_at: nstr,
    created_at: str,
    updated_at: str,
    settled_at: nstr,
  },
} as const;
