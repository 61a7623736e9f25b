import { positiveIntEnv } from '../../../../lib/env.js';
import { normalizePublicUrl } from './public-url.js';

export interface LightningConfig {
  /** scheme://host[:port] the LNURL links and callbacks are reached at; its host (and a port that is
   * not the scheme's default) is the lightning-address domain. */
  publicUrl: string;
  /** How long POST /payments/pay waits for the node's final answer before returning 'pending'
   * (the payment is still settled or refunded in the background when the answer comes). */
  payWaitMs: number;
  /** How old a pending payment the node has no record of must be before the reconcile refunds it. */
  payUnknownGraceMs: number;
  /** Interval of the reconciles (reconcile-timer.ts): pending invoices (the safety net behind the
   * node's invoice stream), pending payments, node invoices still to cancel. Unset: by the node
   * (reconcileIntervalMs). */
  reconcileMs?: number;
}

/** The reconciles' interval where the configuration names none: on a node without an invoice
 * stream (RLN) they are how settled invoices are found, so they run often. */
export const reconcileIntervalMs = (config: LightningConfig, hasInvoiceStream: boolean): number =>
  config.reconcileMs ?? (hasInvoiceStream ? 15_000 : 2_000);

/** The Lightning settings; the node itself is named by NODE_KIND and its connection (lib/lightning). */
export function loadLightningConfig(env: NodeJS.ProcessEnv = process.env): LightningConfig {
  const host = env.HOST ?? '127.0.0.1';
  const port = env.PORT ?? '8080';
  return {
    publicUrl: normalizePublicUrl(env.PUBLIC_URL || `http://${host}:${port}`),
    payWaitMs: positiveIntEnv(env, 'PAY_WAIT_MS', 30_000),
    payUnknownGraceMs: positiveIntEnv(env, 'PAY_UNKNOWN_GRACE_MS', 120_000),
    reconcileMs: env.INVOICE_RECONCILE_MS ? positiveIntEnv(env, 'INVOICE_RECONCILE_MS', 1) : undefined,
  };
}
