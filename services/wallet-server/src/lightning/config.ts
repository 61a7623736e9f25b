import { positiveIntEnv } from '../../../../lib/env.js';
import type { NodeKind } from './gateway.js';
import { normalizePublicUrl } from './public-url.js';

export interface LightningConfig {
  nodeKind: NodeKind;
  /** RLN daemon base URL (NODE_KIND=rln). */
  rlnUrl: string;
  /** reglab-ldk daemon base URL (NODE_KIND=ldk). */
  ldkUrl: string;
  rlnToken?: string;
  /** scheme://host[:port] the LNURL links and callbacks are reached at; its host (and a port that is
   * not the scheme's default) is the lightning-address domain. */
  publicUrl: string;
  /** How long POST /payments/pay waits for the node's final answer before returning 'pending'
   * (the payment is still settled or refunded in the background when the answer comes). */
  payWaitMs: number;
  /** How old a pending payment the node has no record of must be before the reconcile refunds it. */
  payUnknownGraceMs: number;
  /** Interval of the reconciles (reconcile-timer.ts): pending invoices (the safety net behind lnd's
   * invoice stream; RLN's only source), pending payments, node invoices still to cancel. */
  reconcileMs: number;
}

export function loadLightningConfig(env: NodeJS.ProcessEnv = process.env): LightningConfig {
  const nodeKind = (env.NODE_KIND ?? 'lnd') as NodeKind;
  if (nodeKind !== 'lnd' && nodeKind !== 'ldk' && nodeKind !== 'rln')
    throw new Error(`NODE_KIND must be lnd, ldk or rln, got "${env.NODE_KIND}"`);
  const host = env.HOST ?? '127.0.0.1';
  const port = env.PORT ?? '8080';
  return {
    nodeKind,
    rlnUrl: env.RLN_URL ?? 'http://127.0.0.1:3001',
    rlnToken: env.RLN_TOKEN || undefined,
    ldkUrl: env.LDK_URL ?? 'http://127.0.0.1:3000',
    publicUrl: normalizePublicUrl(env.PUBLIC_URL || `http://${host}:${port}`),
    payWaitMs: positiveIntEnv(env, 'PAY_WAIT_MS', 30_000),
    payUnknownGraceMs: positiveIntEnv(env, 'PAY_UNKNOWN_GRACE_MS', 120_000),
    reconcileMs: positiveIntEnv(env, 'INVOICE_RECONCILE_MS', nodeKind === 'rln' ? 2_000 : 15_000),
  };
}
