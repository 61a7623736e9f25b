// The mixed lnd/LDK lab (docs/examples/mixed-lab.yaml: alice lnd -> bob ldk -> carol lnd) with
// `runtime: kubernetes`, on the test cluster, through the CLI: bob runs in a pod of the LDK image,
// pays and is paid by alice, forwards alice's payments to carol and carol's back, and `reglab down`
// leaves nothing in the cluster. Each step waits on the lab's or the cluster's state.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS } from '../support/kubernetes.js';
import { type ClusterLabFolder, clusterLabFolder, leftInCluster } from './support.js';

interface NodeStatus {
  name: string;
  kind: string;
  channels: { partner: string; localSat: number; active: boolean }[];
}
interface LabStatus {
  status: string;
  nodes: NodeStatus[];
}
interface Pod {
  metadata: { name: string };
  spec: { containers: { image: string }[] };
  status: { phase: string };
}

const name = `k8s-mix-${randomBytes(3).toString('hex')}`;
const namespace = `reglab-${name}`;
const YAML = readFileSync('docs/examples/mixed-lab.yaml', 'utf8')
  .replace(/^name: mixed$/m, `name: ${name}`)
  .replace(/^runtime: .*\n/m, '');

describe('the mixed lnd/LDK lab on the kubernetes runtime, through the CLI', () => {
  let lab: ClusterLabFolder;
  const status = async (): Promise<LabStatus> => JSON.parse((await lab.reglab('--json', 'status')).stdout);
  const localSat = async (node: string, partner: string) =>
    (await status()).nodes.find((candidate) => candidate.name === node)!.channels.find((c) => c.partner === partner)!
      .localSat;
  /** `reglab pay FROM TO AMOUNT`, then waits until TO's side of its channel with `via` grows by it. */
  const pay = async (from: string, to: string, amount: number, via: string) => {
    const before = await localSat(to, via);
    const paid = await lab.reglab('pay', from, to, String(amount));
    expect(paid.code, paid.stdout + paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(new RegExp(`^paid ${amount} sat ${from} -> ${to}`));
    await waitFor(async () => (await localSat(to, via)) === before + amount, {
      timeoutMs: 60_000,
      what: `${to}'s side of the channel with ${via} to grow by the payment`,
    });
  };

  beforeAll(async () => {
    lab = await clusterLabFolder(YAML);
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterAll(async () => {
    await lab?.reglab('down');
    lab?.remove();
  });

  it('comes up with bob an ldk node in a pod of the LDK image, its channels active', async () => {
    const up = await lab.reglab('up');
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^ready in /m);
    const bobPod = (await lab.getJson<Pod>('pod', 'bob', '--namespace', namespace)) as Pod;
    expect(bobPod.status.phase).toBe('Running');
    expect(bobPod.spec.containers[0]!.image).toMatch(/reglab-ldk:/);
    const lab1 = await status();
    expect(lab1.status).toBe('ready');
    const bob = lab1.nodes.find((node) => node.name === 'bob')!;
    expect(bob.kind).toBe('ldk');
    expect(bob.channels.map((channel) => [channel.partner, channel.active]).sort()).toEqual([
      ['alice', true],
      ['carol', true],
    ]);
  });

  it('pays both ways between lnd and LDK: alice -> bob, bob -> alice', async () => {
    // amounts that leave each payer above its channel reserve (1% of the capacity), which it cannot spend
    await pay('alice', 'bob', 200_000, 'alice');
    await pay('bob', 'alice', 50_000, 'bob');
  });

  it('LDK forwards both ways: alice -> carol and carol -> alice through bob', async () => {
    await pay('alice', 'carol', 100_000, 'bob');
    await pay('carol', 'alice', 20_000, 'bob');
  });

  it('reglab down leaves nothing of the lab in the cluster', async () => {
    const down = await lab.reglab('down');
    expect(down.code, down.stdout + down.stderr).toBe(0);
    await waitFor(async () => (await leftInCluster(lab, [namespace])).length === 0, {
      timeoutMs: 120_000,
      what: `the namespace ${namespace} and its volumes to be gone`,
    });
  });
});
