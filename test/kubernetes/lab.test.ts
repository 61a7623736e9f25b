// The default lab (the repository's lab.yaml) with `runtime: kubernetes`, on the test cluster, driven
// through the CLI as a user drives it: every service in a pod of the lab's own namespace with its
// Service and its claim, `reglab status`, a payment over two channels, a crash of a node's process
// seen with its reason and restart count and recovered from, and `reglab down` leaving nothing in
// the cluster. Each step waits on the lab's or the cluster's state.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../control-plane/src/runtimes/kubernetes/names.js';
import { waitFor } from '../../lib/wait.js';
import { collectEvents, DEFAULT_LAB_SERVICES } from '../support/control-plane.js';
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
  metadata: { name: string; uid: string; labels: Record<string, string> };
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
  const serviceStatus = async (service: string) =>
    (await status()).services.find((candidate) => candidate.name === service)!;
  const podOf = async (service: string) => (await pods()).find((pod) => pod.metadata.name === service);
  /** Every channel of `node` with `partner` active (or, with `active` false, none). */
  const channelsWith = async (node: string, partner: string, active: boolean) =>
    (await status()).nodes
      .find((candidate) => candidate.name === node)!
      .channels.filter((channel) => channel.partner === partner)
      .every((channel) => channel.active === active);
  /** A payment alice -> carol that carol's channel with bob shows. */
  const payAliceCarol = async (amount: number) => {
    await waitFor(
      async () => (await channelsWith('alice', 'bob', true)) && (await channelsWith('carol', 'bob', true)),
      { timeoutMs: 120_000, what: 'the channels alice - bob - carol to be active' },
    );
    const before = await carolFromBob();
    const paid = await lab.reglab('pay', 'alice', 'carol', String(amount));
    expect(paid.code, paid.stdout + paid.stderr).toBe(0);
    await waitFor(async () => (await carolFromBob()) === before + amount, {
      timeoutMs: 60_000,
      what: "carol's side of her channel with bob to grow by the payment",
    });
  };

  /** Each node's channel balances. */
  const balancesOf = (lab: LabStatus) =>
    lab.nodes.map((node) => [node.name, node.channels.map((channel) => channel.localSat)]);
  const height = async () => JSON.parse((await lab.reglab('--json', 'status')).stdout).chain.height as number;
  /** What snapshot base holds, as the lab showed it when it was saved. */
  let snapshotBase: { balances: ReturnType<typeof balancesOf>; height: number };
  /** The address each of the lab's service names resolves to inside `pod`'s container, as its service looks it up. */
  const addressesSeenBy = async (pod: string): Promise<Record<string, string>> => {
    const lookups = DEFAULT_LAB_SERVICES.map((service) => `set -- $(getent hosts ${service}) && echo ${service} $1`);
    const out = await lab.cluster.kubectl([
      'exec',
      '--namespace',
      namespace,
      pod,
      '--',
      '/bin/sh',
      '-c',
      lookups.join('; '),
    ]);
    return Object.fromEntries(
      out
        .trim()
        .split('\n')
        .map((line) => line.split(' ')),
    );
  };

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
    expect(running.map((pod) => pod.metadata.name).sort()).toEqual(DEFAULT_LAB_SERVICES);
    for (const pod of running) {
      expect(pod.status.phase).toBe('Running');
      expect(pod.metadata.labels[LABELS.lab]).toBe(name);
    }
    const services = await lab.getJson<Listed<{ metadata: { name: string } }>>('services', '--namespace', namespace);
    expect(services.items.map((service) => service.metadata.name).sort()).toEqual(DEFAULT_LAB_SERVICES);
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
      DEFAULT_LAB_SERVICES.map((service) => [service, 'ready']),
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

  it('disconnect and connect: alice and bob part as peers, their channel goes inactive, then works again', async () => {
    const parted = await lab.reglab('disconnect', 'alice', 'bob');
    expect(parted.code, parted.stdout + parted.stderr).toBe(0);
    await waitFor(async () => channelsWith('alice', 'bob', false), {
      timeoutMs: 60_000,
      what: "alice's channel with bob to be inactive",
    });
    const refused = await lab.reglab('pay', 'alice', 'carol', '700');
    expect(refused.code).toBe(1);
    expect(refused.stdout + refused.stderr).toContain("alice's channel to bob is inactive");

    const joined = await lab.reglab('connect', 'alice', 'bob');
    expect(joined.code, joined.stdout + joined.stderr).toBe(0);
    await payAliceCarol(700);
  });

  it("stop deletes carol's pod and keeps her claim, start makes it again, restart both", async () => {
    const stopped = await lab.reglab('stop', 'carol');
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain('carol stopped');
    await waitFor(async () => (await podOf('carol')) === undefined, {
      timeoutMs: 60_000,
      what: "carol's pod to be gone",
    });
    expect((await serviceStatus('carol')).status).toBe('stopped');
    const claims = await lab.getJson<Listed<Claim>>('persistentvolumeclaims', '--namespace', namespace);
    expect(claims.items.map((claim) => claim.metadata.name)).toContain('carol-data');
    const refused = await lab.reglab('pay', 'alice', 'carol', '1000');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('carol is stopped: start it with `reglab start carol`');

    const started = await lab.reglab('start', 'carol');
    expect(started.code, started.stdout + started.stderr).toBe(0);
    expect(started.stdout).toContain('carol ready');
    const first = (await podOf('carol'))!;
    expect(first.status.phase).toBe('Running');
    await payAliceCarol(600);

    const restarted = await lab.reglab('restart', 'carol');
    expect(restarted.code, restarted.stdout + restarted.stderr).toBe(0);
    const second = (await podOf('carol'))!;
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    expect(second.status.phase).toBe('Running');
    const carol = await serviceStatus('carol');
    // a stop asked for is no crash: no restart counted
    expect([carol.status, carol.restarts]).toEqual(['ready', 0]);
    await payAliceCarol(400);
  });

  it("a kill -9 of carol's lnd from inside her container is a crash, with its reason and restart count", async () => {
    const open = await lab.reglab('open');
    const events = collectEvents(`${new URL(open.stdout.trim()).origin}/labs/${name}/events`);
    try {
      // the service is the child of the container's runner (PID 1); an exec'd shell's parent is outside
      const found = await lab.cluster.kubectl([
        'exec',
        '--namespace',
        namespace,
        'carol',
        '--',
        '/bin/sh',
        '-c',
        // an `if`, so that the loop's status is not that of the last process's grep
        'for d in /proc/[0-9]*; do if grep -qx "PPid:[[:space:]]*1" $d/status 2>/dev/null; then echo "${d#/proc/} $(cat $d/comm)"; fi; done',
      ]);
      const children = found
        .trim()
        .split('\n')
        .map((line) => line.split(' '));
      expect(children.map(([, command]) => command)).toEqual(['lnd']);
      const [[pid]] = children as [[string]];
      await lab.cluster.kubectl(['exec', '--namespace', namespace, 'carol', '--', '/bin/sh', '-c', `kill -9 ${pid}`]);

      const container = await waitFor(
        async () => {
          const carol = await podOf('carol');
          const status = carol?.status.containerStatuses?.find((candidate) => candidate.name === 'carol');
          return status?.restartCount === 1 ? status : undefined;
        },
        { timeoutMs: 60_000, what: "carol's container to be restarted by the kubelet" },
      );
      expect(container.lastState?.terminated?.exitCode).toBe(137);
      const crash = await waitFor(
        async () =>
          events.events.find(
            (event) =>
              event.type === 'service' &&
              event.service === 'carol' &&
              /carol stopped running/.test(event.message ?? ''),
          ),
        { timeoutMs: 60_000, what: "carol's crash to be reported" },
      );
      expect((crash as { message: string }).message).toMatch(
        /^carol stopped running: killed by SIGKILL \(restart count \d+\); restarting \(restart 1\)/,
      );
      await waitFor(
        async () => {
          const carol = await serviceStatus('carol');
          return carol.status === 'ready' && carol.restarts === 1;
        },
        { timeoutMs: 120_000, what: 'carol to be ready again, with one restart counted' },
      );
    } finally {
      events.stop();
    }
    await payAliceCarol(300);
  });

  it('a snapshot saved, the lab changed, then reset: the channels and chain are as saved', async () => {
    const saved = await lab.reglab('snapshot', 'save', 'base');
    expect(saved.code, saved.stdout + saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`lab ${name} saved as snapshot base`);
    snapshotBase = { balances: balancesOf(await status()), height: await height() };

    await payAliceCarol(900);
    expect((await lab.reglab('mine', '3')).code).toBe(0);
    expect(balancesOf(await status())).not.toEqual(snapshotBase.balances);

    const reset = await lab.reglab('reset');
    expect(reset.code, reset.stdout + reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(new RegExp(`lab ${name} reset to snapshot base in [\\d.]+s`));
    const after = await status();
    expect(after.status).toBe('ready');
    expect(balancesOf(after)).toEqual(snapshotBase.balances);
    expect(await height()).toBe(snapshotBase.height);
    await payAliceCarol(200);
  });

  it('comes up again from the snapshot right after a down, as saved, its services finding each other', async () => {
    // alice looks every service up, as her lnd does at its start: the cluster's DNS now remembers
    // the addresses of the Services that the down deletes
    const before = await addressesSeenBy('alice');
    expect(Object.keys(before).sort()).toEqual(DEFAULT_LAB_SERVICES);
    expect((await lab.reglab('down')).code).toBe(0);
    await waitFor(async () => (await leftInCluster(lab, [namespace])).length === 0, {
      timeoutMs: 120_000,
      what: `the namespace ${namespace} to be gone before the lab comes up again`,
    });

    const up = await lab.reglab('up', '--from-snapshot', 'base');
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain(`bringing lab ${name} up from snapshot base`);
    const after = await status();
    expect(after.status).toBe('ready');
    expect(balancesOf(after)).toEqual(snapshotBase.balances);
    expect(await height()).toBe(snapshotBase.height);
    // each name stands for its Service of this lab, not for one the down deleted
    const services = await lab.getJson<Listed<{ metadata: { name: string }; spec: { clusterIP: string } }>>(
      'services',
      '--namespace',
      namespace,
    );
    const seen = await addressesSeenBy('alice');
    for (const service of services.items.filter((service) => service.metadata.name !== 'alice'))
      expect([service.metadata.name, seen[service.metadata.name]]).toEqual([
        service.metadata.name,
        service.spec.clusterIP,
      ]);
    await payAliceCarol(250);
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
