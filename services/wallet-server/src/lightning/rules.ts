// The Lightning money rules of this server, in one place (documented in docs/wallet-server.md).
import type { Network } from '../config.js';

/** Invoice expiry when expiry_sec is not given, and the most allowed. */
export const DEFAULT_EXPIRY_SEC = 3600;
export const MAX_EXPIRY_SEC = 7 * 24 * 3600;

/** An RGB invoice or payment needs at least this much bitcoin (RLN's HTLC minimum). */
export const RGB_MIN_MSAT = 3_000_000n;

const MIN_FEE_LIMIT_MSAT = 10_000n;

/** The smallest LNURL-withdraw offered, and so the least a withdraw limit or budget may be. */
export const MIN_WITHDRAWABLE_MSAT = 1_000n;

/** Most routing fee an outgoing payment may cost: max(1% of the amount rounded up, 10 sat). It is
 * reserved with the amount and the unused part refunded when the node reports the real fee. */
export function feeLimitMsat(amountMsat: bigint): bigint {
  const onePercent = (amountMsat + 99n) / 100n;
  return onePercent > MIN_FEE_LIMIT_MSAT ? onePercent : MIN_FEE_LIMIT_MSAT;
}

/** Largest amount whose amount + fee limit fits in a balance (0 when nothing fits). */
export function largestPayable(balanceMsat: bigint): bigint {
  const flat = balanceMsat - MIN_FEE_LIMIT_MSAT;
  // Up to 100x the minimum fee, the fee limit is the minimum.
  if (flat <= MIN_FEE_LIMIT_MSAT * 100n) return flat > 0n ? flat : 0n;
  let a = (balanceMsat * 100n) / 101n;
  while (a + feeLimitMsat(a) > balanceMsat) a--;
  return a;
}

/** BOLT11 human-readable prefix of each network (after "ln"). */
export const BOLT11_PREFIX: Record<Network, string> = { regtest: 'bcrt', testnet: 'tb', signet: 'tbs', bitcoin: 'bc' };
