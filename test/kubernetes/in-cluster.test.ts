// The control plane inside the cluster, on the test cluster, as a user runs it: the manifests of
// `reglab render --kubernetes --control-plane` applied with kubectl into a fresh namespace; the
// Deployment's pod brings the default lab up there by itself, under its Role only; the CLI drives
// it through a port-forward to its Service (REGLAB_URL, REGLAB_TOKEN); a payment, a snapshot; the
// pod deleted, and the new one takes the lab, its jobs and its snapshot back from its claim and
// goes on controlling it; `reglab down`, then `kubectl delete -f`, leave nothing in the cluster.
// Every step waits on the cluster's or the lab's state.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../control-plane/src/runtimes/kubernetes/names.js';
import { waitFor } from '../../lib/wait.js';
import { CLI, type CliResult } from '../support/cli.js';
import { DEFAULT_LAB_SERVICES } from '../support/control-plane.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS } from '../support/kubernetes.js';
import { type ClusterLabFolder, clusterLabFolder, defaultLabYaml, leftInCluster } from './support.js';

const run = promisify(execFile);

const name = `incluster-${randomBytes(3).toString('hex')}`;
const namespace = `reglab-${name}`;
const CONTROL_PLANE = 'reglab-control-plane';
const SELECTOR = 'app.kubernetes.io/component=control-plane';
const ACCOUNT = `system:serviceaccount:${namespace}:${CONTROL_PLANE}`;
/** A bring-up on the cluster, with other work on the same two cores. */
const LAB_READY_MS = 10 * 60_000;

interface ServiceView {
  name: string;
  status: string;
  restarts: number;
  info: Record<string, string>;
}
interface LabView {
  status: string;
  runtime: string;
  chain: { height: number };
  services: ServiceView[];
  nodes: { name: string; channels: { partner: string; localSat: number; active: boolean }[] }[];
}
interface Pod {
  metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  status: {
    phase?: string;
    conditions?: { type: string; status: string; message?: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount: number;
      state?: Record<string, { reason?: string }>;
    }[];
  };
}

const isReady = (pod: Pod) =>
  pod.status.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;

/** A pod's state in a line, for a wait that times out: its phase, why it is not scheduled, each container's. */
const describePod = (pod: Pod) =>
  `${pod.metadata.name} ${pod.status.phase}${pod.status.conditions
    ?.filter((condition) => condition.status !== 'True' && condition.message)
    .map((condition) => ` (${condition.type}: ${condition.message})`)
    .join('')}${(pod.status.containerStatuses ?? [])
    .map(
      (container) =>
        ` ${container.name}: ${Object.entries(container.state ?? {})
          .map(([state, detail]) => `${state}${detail.reason ? ` ${detail.reason}` : ''}`)
          .join()}, ready ${container.ready}, restarts ${container.restartCount}`,
    )
    .join(';')}`;
interface Listed<T> {
  items: T[];
}

/** `kubectl port-forward` to the control plane's Service, on a free port here, until closed. */
interface Forward {
  url: string;
  close(): void;
}

function portForward(): Promise<Forward> {
  const child: ChildProcess = spawn(
    'bash',
    [
      resolve('scripts/test-cluster.sh'),
      'kubectl',
      '-n',
      namespace,
      'port-forward',
      `service/${CONTROL_PLANE}`,
      ':8080',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolvePromise, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const port = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(output)?.[1];
      if (port) resolvePromise({ url: `http://127.0.0.1:${port}`, close: () => child.kill() });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.on('exit', (code) =>
      reject(new Error(`kubectl port-forward exited (${code}) before it listened:\n${output}`)),
    );
  });
}

describe('the control plane inside the cluster, applied from `reglab render --kubernetes --control-plane`', () => {
  let lab: ClusterLabFolder;
  let rendered: string;
  let token: string;
  let forward: Forward | undefined;
  let paymentJob: string;

  /** `reglab ARGS...` on this machine, asking the control plane at `url` (REGLAB_URL). */
  const reglabAt = async (url: string, ...args: string[]): Promise<CliResult> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [CLI, ...args], {
        cwd: lab.folder,
        env: {
          ...process.env,
          REGLAB_HOME: join(lab.folder, '.reglab'),
          REGLAB_URL: url,
          REGLAB_TOKEN: token,
        },
        timeout: 300_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as CliResult;
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };
  /** `reglab ARGS...` through the port-forward to the control plane in the cluster. */
  const reglab = (...args: string[]) => reglabAt(forward!.url, ...args);
  const status = async (): Promise<LabView> => JSON.parse((await reglab('--json', 'status')).stdout) as LabView;
  const statusWhen = (test: (view: LabView) => boolean, what: string, timeoutMs = LAB_READY_MS) =>
    waitFor(
      async () => {
        const view = await status();
        return test(view) ? view : undefined;
      },
      { timeoutMs, intervalMs: 1_000, what },
    );
  const allReady = (view: LabView) => view.status === 'ready' && view.services.every((s) => s.status === 'ready');
  const controlPlanePods = async () =>
    (await lab.getJson<Listed<Pod>>('pods', '-n', namespace, '-l', SELECTOR)).items.filter(
      (pod) => !pod.metadata.deletionTimestamp,
    );
  const labPods = async () => (await lab.getJson<Listed<Pod>>('pods', '-n', namespace, '-l', LABELS.lab)).items;
  /** Whether the control plane's service account may do `verb` on `resource` (kubectl's other arguments in `more`). */
  const mayDo = (verb: string, resource: string, ...more: string[]) =>
    lab.cluster.kubectl(['auth', 'can-i', verb, resource, `--as=${ACCOUNT}`, ...more]).then(
      (answer) => answer.trim() === 'yes',
      (error: Error) => {
        // kubectl answers "no" with exit code 1
        if (/(^|\n)no(\n|$)/.test(error.message)) return false;
        throw error;
      },
    );

  beforeAll(async () => {
    lab = await clusterLabFolder(defaultLabYaml(name), ['--control-plane']);
    const render = await lab.reglab('render', '--kubernetes', '--control-plane');
    expect(render.code, render.stderr).toBe(0);
    rendered = render.stdout;
    await lab.cluster.kubectl(['apply', '-f', '-'], rendered);
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail' || !lab) return;
    // what the cluster saw, to tell why: its pods and events, the control plane's last lines
    const said = async (args: string[]) => lab.cluster.kubectl(args).catch((error: Error) => error.message);
    console.error(
      [
        await said(['-n', namespace, 'get', 'pods', '-o', 'wide']),
        await said(['-n', namespace, 'get', 'events', '--sort-by=.lastTimestamp']),
        await said(['-n', namespace, 'logs', `deployment/${CONTROL_PLANE}`, '-c', 'control-plane', '--tail=40']),
      ].join('\n'),
    );
  });

  afterAll(async () => {
    forward?.close();
    if (!lab) return;
    // also after a failure: the namespace takes the control plane, the lab and their claims with it
    await lab.cluster.kubectl([
      'delete',
      'namespace',
      namespace,
      '--ignore-not-found',
      '--wait=true',
      '--timeout=300s',
    ]);
    await waitFor(async () => (await leftInCluster(lab, [namespace])).length === 0, {
      timeoutMs: 180_000,
      what: `nothing of namespace ${namespace} to be left`,
    });
    lab.remove();
  }, 600_000);

  it(
    'runs as a Deployment whose pod, under a Role of its namespace only, brings the lab up by itself',
    async () => {
      await lab.cluster.kubectl([
        '-n',
        namespace,
        'rollout',
        'status',
        `deployment/${CONTROL_PLANE}`,
        '--timeout=600s',
      ]);
      token = Buffer.from(
        await lab.cluster.kubectl(['-n', namespace, 'get', 'secret', CONTROL_PLANE, '-o', 'jsonpath={.data.token}']),
        'base64',
      ).toString('utf8');
      forward = await portForward();

      // its dashboard and API, behind its Service, with the token for actions
      const page = await fetch(`${forward.url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const refused = await fetch(`${forward.url}/labs/${name}/mine`, { method: 'POST' });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('TOKEN_REQUIRED');

      const view = await statusWhen(allReady, `lab ${name}, brought up by the control plane in its pod, to be ready`);
      expect(view.runtime).toBe('kubernetes');
      expect(view.services.map((service) => service.name).sort()).toEqual(DEFAULT_LAB_SERVICES);
      // reached from inside by the Services' names, not through the API server's port-forward
      expect(view.services.find((service) => service.name === 'faucet')!.info.url).toMatch(/^http:\/\/faucet:\d+\/$/);

      // least privilege: pods of its namespace, nothing of the cluster
      const here = ['-n', namespace];
      expect(await mayDo('create', 'pods', ...here)).toBe(true);
      expect(await mayDo('create', 'pods', '--subresource=exec', ...here)).toBe(true);
      expect(await mayDo('create', 'pods', '--subresource=portforward', ...here)).toBe(false);
      expect(await mayDo('list', 'secrets', ...here)).toBe(false);
      expect(await mayDo('create', 'pods', '-n', 'default')).toBe(false);
      expect(await mayDo('create', 'namespaces')).toBe(false);
      expect(await mayDo('list', 'persistentvolumes')).toBe(false);
    },
    LAB_READY_MS + 120_000,
  );

  it('pays alice -> carol and saves a snapshot through it, from this machine', async () => {
    const carolFromBob = (view: LabView) =>
      view.nodes.find((node) => node.name === 'carol')!.channels.find((channel) => channel.partner === 'bob')!.localSat;
    const before = await statusWhen(
      (view) => view.nodes.every((node) => node.channels.every((channel) => channel.active)),
      'every channel to be active',
      120_000,
    );
    const paid = await reglab('--json', 'pay', 'alice', 'carol', '1000');
    expect(paid.code, paid.stdout + paid.stderr).toBe(0);
    const job = JSON.parse(paid.stdout) as { id: string; state: string };
    expect(job.state).toBe('completed');
    paymentJob = job.id;
    await statusWhen(
      (view) => carolFromBob(view) === carolFromBob(before) + 1000,
      "carol's side of her channel with bob to grow by the payment",
      60_000,
    );

    const saved = await reglab('snapshot', 'save', 'base');
    expect(saved.code, saved.stdout + saved.stderr).toBe(0);
    await statusWhen(allReady, 'the lab to be ready again after its snapshot', 300_000);
  }, 600_000);

  it('comes back when its pod is deleted, with the lab, its jobs and its snapshot, and goes on controlling it', async () => {
    const [old] = await controlPlanePods();
    const labBefore = new Map((await labPods()).map((pod) => [pod.metadata.name, pod.metadata.uid]));
    const height = (await status()).chain.height;
    forward!.close();
    forward = undefined;
    await lab.cluster.kubectl(['-n', namespace, 'delete', 'pod', old.metadata.name, '--wait=true', '--timeout=120s']);
    await waitFor(
      async () => {
        const pods = await controlPlanePods();
        if (pods.some((pod) => pod.metadata.uid !== old.metadata.uid && isReady(pod))) return true;
        // told if the wait times out
        throw new Error(`control plane pods: ${pods.map(describePod).join(' | ') || 'none'}`);
      },
      { timeoutMs: 300_000, intervalMs: 500, what: 'a new control plane pod to be ready' },
    );
    forward = await portForward();

    const view = await statusWhen(allReady, 'the lab, taken back by the new control plane, to be ready', 300_000);
    expect(view.chain.height).toBeGreaterThanOrEqual(height);
    // taken back, not brought up again: the same pods
    expect(new Map((await labPods()).map((pod) => [pod.metadata.name, pod.metadata.uid]))).toEqual(labBefore);
    // its state and its queues' Redis kept on its claim
    const job = await fetch(`${forward.url}/jobs/${paymentJob}`);
    expect(job.status).toBe(200);
    expect(((await job.json()) as { state: string }).state).toBe('completed');
    const snapshots = JSON.parse((await reglab('--json', 'snapshot', 'list')).stdout) as {
      snapshots: { name: string; lab: string }[];
    };
    expect(snapshots.snapshots).toEqual([expect.objectContaining({ name: 'base', lab: name })]);

    // still controlled: mining, and a crash seen and recovered from
    const mined = await reglab('mine', '1');
    expect(mined.code, mined.stdout + mined.stderr).toBe(0);
    expect((await status()).chain.height).toBe(view.chain.height + 1);
    const bobBefore = view.services.find((service) => service.name === 'bob')!.restarts;
    const killed = await reglab('kill', 'bob');
    expect(killed.code, killed.stdout + killed.stderr).toBe(0);
    await statusWhen(
      (after) => allReady(after) && after.services.find((service) => service.name === 'bob')!.restarts > bobBefore,
      'bob, killed, to be restarted and ready',
      300_000,
    );
  }, 900_000);

  it('leaves nothing in the cluster after `reglab down` and `kubectl delete -f`', async () => {
    const down = await reglab('down');
    expect(down.code, down.stdout + down.stderr).toBe(0);
    // the lab's objects went; the control plane, elsewhere, stays up
    expect(await labPods()).toEqual([]);
    await waitFor(
      async () => (await lab.getJson<Listed<unknown>>('pvc', '-n', namespace, '-l', LABELS.lab)).items.length === 0,
      { timeoutMs: 120_000, what: "the lab's claims to be gone" },
    );
    expect((await fetch(`${forward!.url}/health`)).status).toBe(200);
    const forwarded = forward!.url;
    forward!.close();
    forward = undefined;
    // without its port-forward, the CLI says which control plane does not answer
    const lost = await waitFor(
      async () => {
        const result = await reglabAt(forwarded, 'status');
        return result.stderr.includes('(REGLAB_URL) does not answer') ? result : undefined;
      },
      { timeoutMs: 30_000, what: 'the CLI to find the control plane gone with its port-forward' },
    );
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain(
      `the control plane at ${forwarded} (REGLAB_URL) does not answer: start the port-forward`,
    );

    await lab.cluster.kubectl(['delete', '-f', '-', '--wait=true', '--timeout=300s'], rendered);
    await waitFor(async () => (await leftInCluster(lab, [namespace])).length === 0, {
      timeoutMs: 180_000,
      what: `nothing of namespace ${namespace} to be left`,
    });
    expect((await lab.cluster.kubectl(['get', 'all,pvc', '-n', namespace, '-o', 'name'])).trim()).toBe('');
    const everywhere = await lab.cluster.kubectl([
      'get',
      'clusterroles,clusterrolebindings,namespaces',
      '-l',
      `app.kubernetes.io/instance=${name}`,
      '-o',
      'name',
    ]);
    expect(everywhere.trim()).toBe('');
    const volumes = await lab.getJson<Listed<{ spec: { claimRef?: { namespace?: string } } }>>('pv');
    expect(volumes.items.filter((volume) => volume.spec.claimRef?.namespace === namespace)).toEqual([]);
  }, 600_000);
});
