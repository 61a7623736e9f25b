export { Ledger, insufficientFunds } from './ledger.js';
export type { ReserveOutgoingInput, IncomingInput, TransferInput, Transfer, EntryReason } from './ledger.js';
export type { Asset, Balance, Direction, Payment, PaymentKind, PaymentStatus } from './types.js';
export { paymentJson, paymentSchema } from './json.js';
