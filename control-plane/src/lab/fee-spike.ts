// A fee spike, a fault of the lab's fee market: every fee rate the lab answers raised to at least a
// rate until the chain has grown by N blocks, then back to lab.yaml's policy. The control plane's fee
// URL (what lnd reads) follows the lab's state at once; the chain adapter and the indexer, which
// answer wallets and LDK nodes, read their policy from their environment, so they are started
// again with the spike in it. Its end needs nothing: each part sees the chain pass its height.
import type { FeeSpike } from '../../../lib/chain/fee-policy.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { DEFAULT_FEES } from '../spec/types.js';
import type { Faults } from '../supervisor/faults.js';
import { requireReady } from './operations.js';
import type { LabSession } from './session.js';

/** The lab services that answer fee rates, from their environment; the adapter after the indexer it reads. */
const FEE_SERVICES = ['indexer', 'chain-adapter'];

export interface FeesView {
  lab: string;
  policy: 'fixed' | 'node';
  /** The fixed policy's rate. */
  satPerVbyte?: number;
  height: number;
  /** The last spike set, with whether it still holds and the blocks left. */
  spike?: FeeSpike & { active: boolean; blocksLeft: number };
}

export async function feesView(session: LabSession): Promise<FeesView> {
  const fees = session.lab.spec.fees ?? DEFAULT_FEES;
  const height = await session.chain.getBlockCount();
  const spike = session.lab.feeSpike;
  return {
    lab: session.lab.name,
    policy: fees.policy,
    ...(fees.policy === 'fixed' ? { satPerVbyte: fees.sat_per_vbyte } : {}),
    height,
    ...(spike
      ? {
          spike: {
            ...spike,
            active: height < spike.untilHeight,
            blocksLeft: Math.max(0, spike.untilHeight - height),
          },
        }
      : {}),
  };
}

/**
 * Sets `spike` (built from the chain's height now) on the lab, and starts its fee-answering services
 * again with it; answers once they are ready.
 */
export async function setFeeSpike(
  session: LabSession,
  faults: Faults,
  persist: () => Promise<void>,
  spikeAt: (height: number) => FeeSpike,
): Promise<FeesView> {
  requireReady(session, CHAIN_SERVICE);
  const running = FEE_SERVICES.filter((name) => session.lab.services[name] !== undefined);
  for (const name of running) requireReady(session, name);
  session.lab.feeSpike = spikeAt(await session.chain.getBlockCount());
  await persist();
  for (const name of running) await faults.act(name, 'restart');
  return feesView(session);
}
