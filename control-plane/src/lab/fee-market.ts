// The lab's fee market as the control plane serves it: the rates of lab.yaml's fee policy, which
// the lab's lnd nodes read through their fee URL (GET /labs/{name}/fees/lnd) from their first start,
// before any lab service is up. The chain adapter and the indexer compute the same rates from the
// same policy (lib/chain/fee-curve.ts), and LDK nodes read theirs.
import { BtcdDriver } from '../../../lib/chain/btcd.js';
import { FeeCurve } from '../../../lib/chain/fee-curve.js';
import type { FeePolicy } from '../../../lib/chain/fee-policy.js';
import { chainRpcFor } from '../nodes/btcd/index.js';
import { runtimeOptionsFor } from '../runtimes/select.js';
import { DEFAULT_FEES } from '../spec/types.js';
import { Credentials } from './credentials.js';
import type { LabState } from './state.js';

/** The lab's fee policy (lab.yaml `fees`), with the spike set on it (reglab fees spike). */
export function labFeePolicy(lab: Pick<LabState, 'spec' | 'feeSpike'>): FeePolicy {
  // a lab recorded before lab.yaml had `fees` keeps the default
  const fees = lab.spec.fees ?? DEFAULT_FEES;
  const spike = lab.feeSpike ? { spike: lab.feeSpike } : {};
  return fees.policy === 'node'
    ? { policy: 'node', ...spike }
    : { policy: 'fixed', satPerVbyte: fees.sat_per_vbyte, ...spike };
}

/** Where, under the control plane, a lab's rates are in lnd's fee-service format. */
export const lndFeesPath = (lab: string) => `/labs/${lab}/fees/lnd`;

/** Each lab's rates, from its chain node as the control plane reaches it (its runtime's way), whatever the lab's status. */
export class LabFeeRates {
  private readonly curves = new Map<string, { chain: string; driver: BtcdDriver; curve: FeeCurve }>();

  /** Fails while the chain node does not answer (or has not started yet). */
  async rates(lab: LabState): Promise<Map<number, number>> {
    const { hostPlacement } = await runtimeOptionsFor(lab.spec);
    const config = chainRpcFor({ lab, credentials: new Credentials(lab.credentials ?? {}) }, hostPlacement(lab));
    // a new chain connection or a new spike: a new curve
    const chain = JSON.stringify({ config, spike: lab.feeSpike });
    let entry = this.curves.get(lab.name);
    if (!entry || entry.chain !== chain) {
      entry?.driver.close();
      const driver = new BtcdDriver(config);
      entry = { chain, driver, curve: new FeeCurve(driver, labFeePolicy(lab)) };
      this.curves.set(lab.name, entry);
    }
    return entry.curve.rates();
  }

  forget(name: string): void {
    this.curves.get(name)?.driver.close();
    this.curves.delete(name);
  }

  close(): void {
    for (const name of [...this.curves.keys()]) this.forget(name);
  }
}
