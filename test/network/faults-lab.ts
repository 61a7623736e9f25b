// The lab the network-fault tests bring up: the mixed lab of docs/examples/mixed-lab.yaml (alice lnd
// -> bob ldk -> carol lnd) with network faults, no lab services; what `GET /labs/{name}/net` says of
// a proxy; and the library's network scenario run against it.
import { ControlPlaneClient } from '../../control-plane/src/cli/client.js';
import { loadScenarioFile } from '../../scenarios/src/load/load-scenario.js';
import { runScenario } from '../../scenarios/src/run/runner.js';
import { failuresOf } from '../scenarios/support.js';

export function faultsLabYaml(name: string, runtime: 'process' | 'docker'): string {
  return `name: ${name}
runtime: ${runtime}
indexer: { enabled: true }
network: { faults: true }
nodes:
  - { name: alice, kind: lnd, funding_sat: 20000000 }
  - { name: bob, kind: ldk, funding_sat: 20000000 }
  - { name: carol, kind: lnd, funding_sat: 20000000 }
channels:
  - { from: alice, to: bob, capacity_sat: 5000000 }
  - { from: bob, to: carol, capacity_sat: 5000000 }
`;
}

export interface ProxyStatus {
  name: string;
  from: string;
  to: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: { name: string; type: string; stream: string; toxicity: number; attributes: Record<string, number> }[];
}

/** The failed steps of the library's network scenario run against `lab` on the control plane at `url`. */
export async function networkScenarioFailures(url: string, lab: string): Promise<string[]> {
  const report = await runScenario(loadScenarioFile('scenarios/network/partition-heal.yaml'), {
    api: new ControlPlaneClient(url),
    lab,
  });
  return report.passed ? [] : [...failuresOf(report), 'the scenario did not pass'];
}
