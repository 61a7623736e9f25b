// The lab's fee market: which fee rates every part of a lab answers (lnd through its fee URL, the
// chain adapter's fee routes, the indexer's blockchain.estimatefee, and through those two LDK).
// A lab service learns it from its environment, as the lab launches it.

/**
 * `fixed`: one rate, in sat/vB, at every confirmation target, whatever traffic the chain has seen;
 * `node`: the chain node's own estimates, completed by the lab's fee curve (lib/chain/fee-curve.ts).
 */
export type FeePolicy = { policy: 'fixed'; satPerVbyte: number } | { policy: 'node' };

/** A service started without a policy (outside a lab) follows its node. */
const STANDALONE_POLICY: FeePolicy = { policy: 'node' };

/** FEE_POLICY (fixed | node) and, for fixed, FEE_SAT_PER_VBYTE (a whole number of sat/vB, at least 1). */
export function feePolicyFromEnv(env: NodeJS.ProcessEnv): FeePolicy {
  const policy = env.FEE_POLICY || STANDALONE_POLICY.policy;
  if (policy === 'node') return { policy };
  if (policy !== 'fixed') throw new Error(`FEE_POLICY must be fixed or node, not "${policy}"`);
  const raw = env.FEE_SAT_PER_VBYTE ?? '';
  const satPerVbyte = Number(raw);
  if (!/^\d+$/.test(raw) || satPerVbyte < 1)
    throw new Error(`FEE_SAT_PER_VBYTE must be a whole number of sat/vB, at least 1, not "${raw}"`);
  return { policy, satPerVbyte };
}

export function feePolicyToEnv(policy: FeePolicy): Record<string, string> {
  return policy.policy === 'fixed'
    ? { FEE_POLICY: 'fixed', FEE_SAT_PER_VBYTE: String(policy.satPerVbyte) }
    : { FEE_POLICY: 'node' };
}
