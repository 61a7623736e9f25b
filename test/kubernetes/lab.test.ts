// The default lab (the repository's lab.yaml) with `runtime: kubernetes`, on the test cluster, driven
// through the CLI as a user drives it: every service in a pod of the lab's own namespace with its
// Service and its claim, `reglab status`, a payment over two channels, a crash of a node's process
// seen with its reason and restart count and recovered from, and `reglab down` leaving nothing in
// the cluster. Each step waits on the lab's or the cluster's state.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../control-plane/src/runtimes/kubernetes/names.js';
import { waitFor } from '../../lib/wait.js';
import { collectEvents } from '../support/control-plane.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS } from '../support/kubernetes.js';
import { type ClusterLabFolder, clusterLabFolder, defaultLabYaml, leftInCluster } from './support.js';

interface ServiceStatus {
  name: string;
  status: string;
  restarts: number;
}
interface NodeStatus {
  name: string;
  channels: { partner: string; localSat: number; active: boolean }[];
}
interface LabStatus {
  status: string;
  runtime: string;
  services: ServiceStatus[];
  nodes: NodeStatus[];
}
interface Pod {
  metadata: { name: string; labels: Record<string, string> };
  status: {
    phase: string;
    containerStatuses?: { name: string; restartCount: number; lastState?: { terminated?: { exitCode: number } } }[];
  };
}
interface Listed<T> {
  items: T[];
}
interface Claim {
  metadata: { name: string };
  status: { phase: string };
}

const name = `k8s-${randomBytes(3).toString('hex')}`;
const namespace = `reglab-${name}`;
const SERVICES = [
  'alice',
  'bob',
  'carol',
  'chain',
  'chain-adapter',
  'faucet',
  'indexer',
  'postgres',
  'redis',
  'wallet-server',
];
/** The services that keep data; the lab services (wallet server, faucet, chain adapter) keep theirs in Postgres. */
const WITH_DATA = ['alice', 'bob', 'carol', 'chain', 'indexer', 'postgres', 'redis'];

describe('the default lab on the kubernetes runtime, through the CLI', () => {
  let lab: ClusterLabFolder;
  const status = async (): Promise<LabStatus> => {
    const result = await lab.reglab('--json', 'status');
    return JSON.parse(result.stdout) as LabStatus;
  };
  const pods = async () => (await lab.getJson<Listed<Pod>>('pods', '--namespace', namespace)).items;
  const carolFromBob = async () =>
    (await status()).nodes.find((node) => node.name === 'carol')!.channels.find((channel) => channel.partner === 'bob')!
      .localSat;

  beforeAll(async () => {
    lab = await clusterLabFolder(defaultLabYaml(name));
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterAll(async () => {
    await lab?.reglab('down');
    lab?.remove();
  });

  it('comes up: each service in its own pod of the lab namespace, with a Service and its data on a claim', async () => {
    const up = await lab.reglab('up');
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toMatch(/^ready in /m);

    const running = await pods();
    expect(running.map((pod) => pod.metadata.name).sort()).toEqual(SERVICES);
    for (const pod of running) {
      expect(pod.status.phase).toBe('Running');
      expect(pod.metadata.labels[LABELS.lab]).toBe(name);
    }
    const services = await lab.getJson<Listed<{ metadata: { name: string } }>>('services', '--namespace', namespace);
    expect(services.items.map((service) => service.metadata.name).sort()).toEqual(SERVICES);
    const claims = await lab.getJson<Listed<Claim>>('persistentvolumeclaims', '--namespace', namespace);
    expect(claims.items.map((claim) => [claim.metadata.name, claim.status.phase]).sort()).toEqual(
      WITH_DATA.map((service) => [`${service}-data`, 'Bound']),
    );
  });

  it('reglab status shows every service ready on the kubernetes runtime', async () => {
    const text = await lab.reglab('status');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`lab ${name}: ready (kubernetes runtime`);
    const reported = await status();
    expect(reported.runtime).toBe('kubernetes');
    expect(reported.services.map((service) => [service.name, service.status]).sort()).toEqual(
      SERVICES.map((service) => [service, 'ready']),
    );
  });

  it('pays from alice to carol over both channels', async () => {
    const before = await carolFromBob();
    const paid = await lab.reglab('pay', 'alice', 'carol', '1000');
    expect(paid.code, paid.stdout + paid.stderr).toBe(0);
    expect(paid.stdout).toMatch(/^paid 1000 sat alice -> carol over 2 hop\(s\)/);
    await waitFor(async () => (await carolFromBob()) === before + 1000, {
      timeoutMs: 60_000,
      what: "carol's side of her channel with bob to grow by the payment",
    });
  });

  it("a kill of bob's process is seen, with its exit and restart count, and bob comes back", async () => {
    const open = await lab.reglab('open');
    const events = collectEvents(`${new URL(open.stdout.trim()).origin}/labs/${name}/events`);
    try {
      const killed = await lab.reglab('kill', 'bob');
      expect(killed.code, killed.stdout + killed.stderr).toBe(0);

      // the kubelet ran the container again after the SIGKILL of the service's process (137)
      const container = await waitFor(
        async () => {
          const bob = (await pods()).find((pod) => pod.metadata.name === 'bob');
          const found = bob?.status.containerStatuses?.find((candidate) => candidate.name === 'bob');
          return found?.restartCount === 1 ? found : undefined;
        },
        { timeoutMs: 60_000, what: "bob's container to be restarted" },
      );
      expect(container.lastState?.terminated?.exitCode).toBe(137);

      const crash = await waitFor(
        async () =>
          events.events.find(
            (event) =>
              event.type === 'service' && event.service === 'bob' && /bob stopped running/.test(event.message ?? ''),
          ),
        { timeoutMs: 60_000, what: "bob's crash to be reported" },
      );
      expect(crash).toMatchObject({ type: 'service', service: 'bob' });
      // the exit as the kubelet recorded it, and the restart that follows
      expect((crash as { message: string }).message).toMatch(
        /^bob stopped running: killed by SIGKILL \(restart count \d+\); restarting \(restart 1\)/,
      );

      await waitFor(
        async () => {
          const service = (await status()).services.find((candidate) => candidate.name === 'bob')!;
          return service.status === 'ready' && service.restarts === 1;
        },
        { timeoutMs: 120_000, what: 'bob to be ready again, with one restart counted' },
      );
    } finally {
      events.stop();
    }
    // and the lab works through bob again, once bob's channels are active again
    await waitFor(
      async () =>
        (await status()).nodes.find((node) => node.name === 'bob')!.channels.every((channel) => channel.active),
      { timeoutMs: 120_000, what: "bob's channels to be active again" },
    );
    const before = await carolFromBob();
    const paid = await lab.reglab('pay', 'alice', 'carol', '500');
    expect(paid.code, paid.stdout + paid.stderr).toBe(0);
    await waitFor(async () => (await carolFromBob()) === before + 500, {
      timeoutMs: 60_000,
      what: "carol's side of her channel with bob to grow by the payment",
    });
  });

  it('reglab down leaves nothing of the lab in the cluster: no namespace, no claim, no volume', async () => {
    const down = await lab.reglab('down');
    expect(down.code, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toContain(`lab ${name} is down`);
    await waitFor(async () => (await leftInCluster(lab, [namespace])).length === 0, {
      timeoutMs: 120_000,
      what: `the namespace ${namespace} and its volumes to be gone`,
    });
  });
});
