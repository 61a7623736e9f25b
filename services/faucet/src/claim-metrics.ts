// The faucet's own metrics: claims by what was claimed and how each ended, and what was sent.
import { Counter, type Registry } from 'prom-client';
import { errorCodeOf } from '../../../lib/errors.js';

export type ClaimKind = 'btc' | 'asset';

export class ClaimMetrics {
  private readonly claims: Counter;
  private readonly sentSat: Counter;

  constructor(registry: Registry) {
    this.claims = new Counter({
      name: 'faucet_claims_total',
      help: "Claims that passed their schema, by what was claimed (btc, asset) and outcome: sent, or the refusal's code (COOLDOWN, INVALID_ADDRESS, ...)",
      labelNames: ['claim', 'outcome'],
      registers: [registry],
    });
    this.sentSat = new Counter({
      name: 'faucet_sent_sat_total',
      help: 'Satoshis the faucet sent to the claims it paid',
      registers: [registry],
    });
  }

  /** Runs a claim and counts how it ended; its answer or its error passes through. */
  async count<T>(claim: ClaimKind, work: () => Promise<T>): Promise<T> {
    try {
      const paid = await work();
      this.claims.inc({ claim, outcome: 'sent' });
      return paid;
    } catch (error) {
      this.claims.inc({ claim, outcome: errorCodeOf(error) ?? 'INTERNAL' });
      throw error;
    }
  }

  sent(amountSat: number): void {
    this.sentSat.inc(amountSat);
  }
}
