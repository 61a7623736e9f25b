// A lab.yaml of N lnd nodes in a line, n0 -> n1 -> ... -> n(N-1), each with one channel to the
// next: what bench:lab-up measures bring-up at scale with (no indexer, no lab services).
import { stringify } from 'yaml';

export function lineLabYaml(nodes: number): string {
  if (!Number.isInteger(nodes) || nodes < 2)
    throw new Error(`--nodes must be a whole number of at least 2, not ${nodes}`);
  const names = Array.from({ length: nodes }, (_, index) => `n${index}`);
  return stringify({
    name: `line${nodes}`,
    indexer: { enabled: false },
    nodes: names.map((name) => ({ name, kind: 'lnd', funding_sat: 10_000_000 })),
    channels: names.slice(1).map((to, index) => ({ from: names[index], to, capacity_sat: 1_000_000, push_sat: 0 })),
    services: {},
  });
}
