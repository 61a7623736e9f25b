// The test cluster (scripts/test-cluster.sh) does what the kubernetes runtime relies on: a Ready node,
// pods on images built here and loaded into its containerd, Services found by DNS name, NodePorts and
// port-forward from this machine, exec and logs, claims bound to volumes it provisions and deletes,
// containers restarted after a crash, pods' traffic kept on this machine, and nothing listening
// beyond loopback and its own bridge. Each check waits on the cluster's state.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { TEST_CLUSTER_UP_TIMEOUT_MS, type TestCluster, testCluster } from '../support/kubernetes.js';

const run = promisify(execFile);
const SCRIPT = resolve('scripts/test-cluster.sh');
const namespace = `reglab-cluster-test-${randomBytes(3).toString('hex')}`;
const image = 'localhost/reglab-cluster-probe:1';
// Debian's busybox-static: one static binary, so the image needs no base image (no registry here)
const BUSYBOX = '/bin/busybox';
const GREETING = 'hello from the claim';
/** The bridge gateway the cluster's own listeners use, besides loopback. */
const GATEWAY = '10.244.0.1';

interface ContainerStatus {
  ready: boolean;
  restartCount: number;
  containerID?: string;
  lastState?: { terminated?: { exitCode: number } };
}
interface Pod {
  status: { phase: string; podIP?: string; containerStatuses?: ContainerStatus[] };
}

let cluster: TestCluster;
const kubectl = (...args: string[]) => cluster.kubectl(['--namespace', namespace, ...args]);
const apply = (manifest: string) => cluster.kubectl(['--namespace', namespace, 'apply', '-f', '-'], manifest);
const getJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl('get', ...args, '-o', 'json'));

/** Builds the probe image with Podman: busybox alone, FROM scratch. */
async function buildProbeImage(): Promise<void> {
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: apt-get install busybox-static`);
  const context = mkdtempSync(join(tmpdir(), 'reglab-probe-image-'));
  try {
    copyFileSync(BUSYBOX, join(context, 'busybox'));
    writeFileSync(
      join(context, 'Containerfile'),
      'FROM scratch\nCOPY busybox /bin/busybox\nENTRYPOINT ["/bin/busybox"]\n',
    );
    await run('podman', ['build', '--quiet', '--tag', image, context]);
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

const claim = (name: string) => `
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 64Mi
`;

/** Serves its claim's folder over HTTP; it writes the page into the claim first. */
const webPod = `
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app: web
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: web
      image: ${image}
      imagePullPolicy: Never
      command:
        - /bin/busybox
        - sh
        - -c
        - echo '${GREETING}' > /data/index.html && echo serving /data && exec /bin/busybox httpd -f -p 8080 -h /data
      ports:
        - containerPort: 8080
      readinessProbe:
        httpGet:
          path: /index.html
          port: 8080
        periodSeconds: 1
      volumeMounts:
        - name: data
          mountPath: /data
  volumes:
    - name: data
      persistentVolumeClaim:
        claimName: data
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
---
apiVersion: v1
kind: Service
metadata:
  name: web-nodeport
spec:
  type: NodePort
  selector:
    app: web
  ports:
    - port: 80
      targetPort: 8080
`;

const clientPod = `
apiVersion: v1
kind: Pod
metadata:
  name: client
spec:
  terminationGracePeriodSeconds: 1
  containers:
    - name: client
      image: ${image}
      imagePullPolicy: Never
      command: [/bin/busybox, sleep, '86400']
`;

const podReady = async (name: string) => {
  const pod = await getJson<Pod>('pod', name);
  const status = pod.status.containerStatuses?.[0];
  return status?.ready ? status : undefined;
};

/** The claim's phase and its volume, once it has one. */
async function boundVolume(name: string): Promise<string | undefined> {
  const claimed = await getJson<{ status: { phase: string }; spec: { volumeName?: string } }>('pvc', name);
  return claimed.status.phase === 'Bound' ? claimed.spec.volumeName : undefined;
}

async function hostPathOf(volume: string): Promise<string> {
  const pv = JSON.parse(await cluster.kubectl(['get', 'pv', volume, '-o', 'json']));
  return pv.spec.hostPath.path;
}

/**
 * The body of http://HOST/index.html, fetched from inside the client pod with busybox's nc (Debian's
 * static busybox wget dies of SIGSEGV in this FROM-scratch image); undefined while it cannot be fetched.
 */
async function fetchFromClient(host: string): Promise<string | undefined> {
  const request = `/bin/busybox printf 'GET /index.html HTTP/1.0\\r\\n\\r\\n' | /bin/busybox nc -w 3 ${host} 80`;
  try {
    const response = await kubectl('exec', 'client', '--', '/bin/busybox', 'sh', '-c', request);
    const [head, body] = response.split('\r\n\r\n');
    return head.startsWith('HTTP/1.1 200') ? body : undefined;
  } catch {
    return undefined;
  }
}

/** The body of a page fetched from this machine; undefined while it cannot be fetched. */
async function fetchPage(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

describe('the test cluster', () => {
  beforeAll(async () => {
    cluster = await testCluster();
    await buildProbeImage();
    await cluster.loadImages(image);
    await cluster.kubectl(['create', 'namespace', namespace]);
    // pods are refused until the namespace's default ServiceAccount exists
    await waitFor(() => kubectl('get', 'serviceaccount', 'default').then(() => true), {
      timeoutMs: 60_000,
      what: `the default ServiceAccount of ${namespace}`,
    });
    // the claim first: a pod whose claim is not bound yet is retried by the scheduler with back-off
    await apply(claim('data'));
    await waitFor(() => boundVolume('data'), { timeoutMs: 60_000, what: 'claim data bound' });
    await apply(webPod);
    await apply(clientPod);
    await waitFor(() => podReady('web'), { timeoutMs: 120_000, what: 'pod web Ready' });
    await waitFor(() => podReady('client'), { timeoutMs: 120_000, what: 'pod client Ready' });
  }, TEST_CLUSTER_UP_TIMEOUT_MS);

  afterAll(async () => {
    await cluster?.kubectl(['delete', 'namespace', namespace, '--wait=true', '--timeout=120s']).catch(() => {});
  }, 180_000);

  it('has a Ready node running the pinned kubelet on containerd', async () => {
    const nodes = JSON.parse(await cluster.kubectl(['get', 'nodes', '-o', 'json'])).items;
    expect(nodes).toHaveLength(1);
    const [node] = nodes;
    const ready = node.status.conditions.find((condition: { type: string }) => condition.type === 'Ready');
    expect(ready.status).toBe('True');
    expect(node.status.nodeInfo.kubeletVersion).toBe('v1.36.3');
    expect(node.status.nodeInfo.containerRuntimeVersion).toMatch(/^containerd:\/\//);
    expect(node.status.addresses).toContainEqual({ type: 'InternalIP', address: GATEWAY });
  });

  it('runs a pod on a locally built image and reaches its Service by DNS name from another pod', async () => {
    const running = await getJson<{ spec: { containers: { image: string }[] } }>('pod', 'web');
    expect(running.spec.containers[0].image).toBe(image);
    // the Service's rules reach kube-proxy shortly after the pod is Ready
    for (const host of ['web', `web.${namespace}.svc.cluster.local`]) {
      const page = await waitFor(() => fetchFromClient(host), {
        timeoutMs: 60_000,
        what: `http://${host}/index.html from pod client`,
      });
      expect(page.trim()).toBe(GREETING);
    }
  });

  it('gives pods routes to its own networks only, so that their traffic stays on this machine', async () => {
    const routes = await kubectl('exec', 'client', '--', '/bin/busybox', 'ip', 'route');
    expect(routes).not.toMatch(/^default/m);
    expect(routes).toMatch(new RegExp(`^10\\.96\\.0\\.0/16 via ${GATEWAY.replaceAll('.', '\\.')} `, 'm'));
  });

  it('reaches a pod from this machine through a NodePort on its bridge and through port-forward', async () => {
    const service = await getJson<{ spec: { ports: { nodePort: number }[] } }>('service', 'web-nodeport');
    const nodePort = `http://${GATEWAY}:${service.spec.ports[0].nodePort}/index.html`;
    const page = await waitFor(() => fetchPage(nodePort), { timeoutMs: 60_000, what: nodePort });
    expect(page.trim()).toBe(GREETING);

    const forward = spawn('bash', [SCRIPT, 'kubectl', '--namespace', namespace, 'port-forward', 'pod/web', '0:8080']);
    try {
      const port = await new Promise<string>((resolvePort, reject) => {
        let seen = '';
        forward.stdout.on('data', (chunk: Buffer) => {
          seen += chunk;
          const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(seen);
          if (match) resolvePort(match[1]);
        });
        forward.on('exit', (code) => reject(new Error(`kubectl port-forward exited (${code}): ${seen}`)));
      });
      expect((await fetchPage(`http://127.0.0.1:${port}/index.html`))?.trim()).toBe(GREETING);
    } finally {
      forward.kill();
    }
  });

  it('runs commands in a container and shows its logs', async () => {
    expect((await kubectl('exec', 'web', '--', '/bin/busybox', 'cat', '/data/index.html')).trim()).toBe(GREETING);
    await expect(kubectl('exec', 'web', '--', '/bin/busybox', 'false')).rejects.toThrow(/exit code 1/);
    expect(await kubectl('logs', 'web')).toContain('serving /data');
  });

  it('binds a claim to a folder it provisions, and deletes both with the claim', async () => {
    // the web pod's page was written through its claim into the volume's folder on this machine
    const folder = await hostPathOf(
      await waitFor(() => boundVolume('data'), { timeoutMs: 10_000, what: 'claim data' }),
    );
    expect(readFileSync(join(folder, 'index.html'), 'utf8').trim()).toBe(GREETING);

    await apply(claim('scratch'));
    const volume = await waitFor(() => boundVolume('scratch'), { timeoutMs: 60_000, what: 'claim scratch bound' });
    const scratch = await hostPathOf(volume);
    expect(existsSync(scratch)).toBe(true);
    await kubectl('delete', 'pvc', 'scratch', '--wait=true');
    await waitFor(
      async () => {
        const left = await cluster.kubectl(['get', 'pv', '--no-headers', '--ignore-not-found', volume]);
        return left.trim() === '' && !existsSync(scratch);
      },
      { timeoutMs: 60_000, what: `volume ${volume} and its folder deleted` },
    );
  });

  it('restarts a container whose process is killed with SIGKILL', async () => {
    const before = await waitFor(() => podReady('web'), { timeoutMs: 60_000, what: 'pod web Ready' });
    const containerId = before.containerID?.replace(/^containerd:\/\//, '');
    if (!containerId) throw new Error('pod web has no container ID');
    // `ctr tasks ls`: TASK PID STATUS, one task per running container
    const task = (await cluster.ctr('tasks', 'ls'))
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .find(([id]) => id === containerId);
    if (!task) throw new Error(`no containerd task for container ${containerId}`);
    process.kill(Number(task[1]), 'SIGKILL');

    const after = await waitFor(
      async () => {
        const status = await podReady('web');
        return status && status.restartCount === before.restartCount + 1 ? status : undefined;
      },
      { timeoutMs: 60_000, what: 'pod web restarted and Ready again' },
    );
    expect(after.lastState?.terminated?.exitCode).toBe(137);
    const page = await waitFor(() => fetchFromClient('web'), {
      timeoutMs: 60_000,
      what: 'http://web/ after the restart',
    });
    expect(page.trim()).toBe(GREETING);
  });

  it('listens only on loopback and on its own bridge', async () => {
    const status = (await run('bash', [SCRIPT, 'status'])).stdout;
    const pids = new Set([...status.matchAll(/\(pid (\d+)\)/g)].map((match) => match[1]));
    expect(pids.size).toBeGreaterThanOrEqual(9);
    const { stdout } = await run('ss', ['-Hltnup']);
    const addresses = stdout
      .split('\n')
      .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((match) => pids.has(match[1])))
      .map((line) => line.trim().split(/\s+/)[4]);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses)
      expect(address).toMatch(new RegExp(`^(127\\.0\\.0\\.1|\\[::1\\]|${GATEWAY.replaceAll('.', '\\.')}):\\d+$`));
  });
});
