export type Direction = 'in' | 'out';
export type PaymentKind = 'invoice' | 'pay' | 'keysend' | 'internal';
export type PaymentStatus = 'pending' | 'succeeded' | 'failed';

/** 'btc' amounts are msat; 'rgb' amounts are in the asset's smallest unit. */
export type Asset = { kind: 'btc' } | { kind: 'rgb'; assetId: string };

export interface Balance {
  assetKind: 'btc' | 'rgb';
  /** '' for btc */
  assetId: string;
  amount: bigint;
}

export interface Payment {
  id: string;
  walletId: string;
  direction: Direction;
  kind: PaymentKind;
  status: PaymentStatus;
  paymentHash: string | null;
  bolt11: string | null;
  preimage: string | null;
  destPubkey: string | null;
  description: string | null;
  amountMsat: bigint;
  feeMsat: bigint;
  /** Fee reserved on top of amountMsat while an outgoing payment is pending. */
  feeLimitMsat: bigint;
  assetId: string | null;
  assetAmount: bigint | null;
  /** Shared by both legs of an internal transfer. */
  transferId: string | null;
  counterpartyWalletId: string | null;
  error: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  settledAt: Date | null;
}
