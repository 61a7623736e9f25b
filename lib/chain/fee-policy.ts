// The lab's fee market: which fee rates every part of a lab answers (lnd through its fee URL, the
// chain adapter's fee routes, the indexer's blockchain.estimatefee, and through those two LDK).
// A lab service learns it from its environment, as the lab launches it.

/**
 * `fixed`: one rate, in sat/vB, at every confirmation target, whatever traffic the chain has seen;
 * `node`: the chain node's own estimates, completed by the lab's fee curve (lib/chain/fee-curve.ts).
 */
export type FeePolicy = ({ policy: 'fixed'; satPerVbyte: number } | { policy: 'node' }) & { spike?: FeeSpike };

/**
 * A fee spike, a fault of the lab's fee market (reglab fees spike): every rate raised to at least
 * `satPerVbyte` while the chain is below `untilHeight`, then back to the policy's, block by block as
 * every part of the lab follows the chain.
 */
export interface FeeSpike {
  satPerVbyte: number;
  untilHeight: number;
}

/** A service started without a policy (outside a lab) follows its node. */
const STANDALONE_POLICY: FeePolicy = { policy: 'node' };

/** FEE_POLICY (fixed | node) and, for fixed, FEE_SAT_PER_VBYTE (a whole number of sat/vB, at least 1). */
export function feePolicyFromEnv(env: NodeJS.ProcessEnv): FeePolicy {
  const spike = feeSpikeFromEnv(env);
  const policy = env.FEE_POLICY || STANDALONE_POLICY.policy;
  if (policy === 'node') return { policy, ...(spike ? { spike } : {}) };
  if (policy !== 'fixed') throw new Error(`FEE_POLICY must be fixed or node, not "${policy}"`);
  return { policy, satPerVbyte: wholeFromEnv(env, 'FEE_SAT_PER_VBYTE', 1), ...(spike ? { spike } : {}) };
}

/** FEE_SPIKE_SAT_PER_VBYTE with FEE_SPIKE_UNTIL_HEIGHT, when set. */
function feeSpikeFromEnv(env: NodeJS.ProcessEnv): FeeSpike | undefined {
  if (!env.FEE_SPIKE_SAT_PER_VBYTE) return undefined;
  return {
    satPerVbyte: wholeFromEnv(env, 'FEE_SPIKE_SAT_PER_VBYTE', 1),
    untilHeight: wholeFromEnv(env, 'FEE_SPIKE_UNTIL_HEIGHT', 0),
  };
}

function wholeFromEnv(env: NodeJS.ProcessEnv, name: string, least: number): number {
  const raw = env[name] ?? '';
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < least)
    throw new Error(
      `${name} must be a whole number${name.includes('VBYTE') ? ' of sat/vB' : ''}, at least ${least}, not "${raw}"`,
    );
  return value;
}

export function feePolicyToEnv(policy: FeePolicy): Record<string, string> {
  return {
    ...(policy.policy === 'fixed'
      ? { FEE_POLICY: 'fixed', FEE_SAT_PER_VBYTE: String(policy.satPerVbyte) }
      : { FEE_POLICY: 'node' }),
    ...(policy.spike
      ? {
          FEE_SPIKE_SAT_PER_VBYTE: String(policy.spike.satPerVbyte),
          FEE_SPIKE_UNTIL_HEIGHT: String(policy.spike.untilHeight),
        }
      : {}),
  };
}

/** The rates under a spike: each raised to the spike's rate while the chain is below its end. */
export function spiked(rates: Map<number, number>, spike: FeeSpike | undefined, height: number): Map<number, number> {
  if (!spike || height >= spike.untilHeight) return rates;
  return new Map([...rates].map(([target, rate]) => [target, Math.max(rate, spike.satPerVbyte)]));
}
