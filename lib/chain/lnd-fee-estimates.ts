// The lab's fee rates in the format of lnd's fee service (`--fee.url`, lnd's SparseConfFeeSource):
// what lnd reads instead of asking btcd, which estimates no target beyond 25 blocks, so that lnd
// fell back to its own 25 sat/vB for every sweep.
import { MINIMUM_RELAY_FEE_SAT_PER_VB } from './types.js';

export interface LndFeeEstimates {
  /** Confirmation target (blocks) -> sat per 1000 vbytes. */
  fee_by_block_target: Record<string, number>;
  /** sat per 1000 vbytes: what lnd starts its sweeps without a deadline at. */
  min_relay_feerate: number;
}

/** `rates`: sat/vB by confirmation target, as FeeCurve gives them. */
export function lndFeeEstimates(rates: ReadonlyMap<number, number>): LndFeeEstimates {
  return {
    fee_by_block_target: Object.fromEntries([...rates].map(([target, rate]) => [String(target), rate * 1000])),
    min_relay_feerate: MINIMUM_RELAY_FEE_SAT_PER_VB * 1000,
  };
}

/** Its JSON schema, for the routes that serve it. */
export const lndFeeEstimatesSchema = {
  type: 'object',
  required: ['fee_by_block_target', 'min_relay_feerate'],
  properties: {
    fee_by_block_target: {
      type: 'object',
      description: 'confirmation target (blocks) -> sat per 1000 vbytes',
      additionalProperties: { type: 'integer' },
    },
    min_relay_feerate: { type: 'integer', description: 'sat per 1000 vbytes' },
  },
} as const;
