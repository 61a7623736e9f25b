// The control plane inside the cluster: `reglab render --kubernetes --control-plane`'s objects, the
// lab.yaml it reads there, how it reaches the lab's services from its pod, and `serve --up`'s
// bringing the lab up once per state folder.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { LABS_AT_START_FILE, readLabAtStart, upAtStart } from '../../control-plane/src/lab-at-start.js';
import {
  controlPlaneObjects,
  inClusterLabYaml,
  renderControlPlane,
} from '../../control-plane/src/lab/render-kubernetes.js';
import type { LabManager } from '../../control-plane/src/manager.js';
import { serviceHostPlacement } from '../../control-plane/src/runtimes/kubernetes/host.js';
import { LABELS } from '../../control-plane/src/runtimes/kubernetes/names.js';
import { serviceAccessProblem } from '../../control-plane/src/runtimes/kubernetes/runtime.js';
import { kubernetesSettings, podNamespace } from '../../control-plane/src/runtimes/kubernetes/settings.js';
import { parseLabSpec } from '../../control-plane/src/spec/parse.js';

const defaultLab = readFileSync('lab.yaml', 'utf8');
/** The default lab as a user's copy for the test cluster names it: kubernetes, with this machine's kubeconfig. */
const clusterLab = `${defaultLab.replace('runtime: process', 'runtime: kubernetes')}kubernetes:\n  kubeconfig: ~/.kube/test\n  context: test\n  storage_class: fast\n`;

interface Container {
  name: string;
  restartPolicy?: string;
  image: string;
  imagePullPolicy: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  readinessProbe?: unknown;
  livenessProbe?: unknown;
  startupProbe?: unknown;
  resources: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts: { name: string; mountPath: string; subPath?: string }[];
}
interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

const objects = (yaml = clusterLab, options = {}) =>
  controlPlaneObjects(yaml, 'lab.yaml', options) as unknown as Manifest[];
const ofKind = (all: Manifest[], kind: string) => all.find((object) => object.kind === kind)!;
const podSpec = (all: Manifest[]) =>
  (ofKind(all, 'Deployment') as unknown as { spec: { template: { spec: Record<string, unknown> } } }).spec.template
    .spec as {
    serviceAccountName: string;
    initContainers: Container[];
    containers: Container[];
    volumes: { name: string; persistentVolumeClaim?: { claimName: string }; configMap?: { name: string } }[];
  };
const container = (all: Manifest[], name: string) =>
  [...podSpec(all).initContainers, ...podSpec(all).containers].find((one) => one.name === name)!;

describe('reglab render --kubernetes --control-plane', () => {
  it("is the control plane's objects in the lab's namespace, in apply order, none of them the lab's", () => {
    const all = objects();
    expect(all.map((object) => `${object.kind}/${object.metadata.name}`)).toEqual([
      'Namespace/reglab-default',
      'ServiceAccount/reglab-control-plane',
      'Role/reglab-control-plane',
      'RoleBinding/reglab-control-plane',
      'ConfigMap/reglab-control-plane',
      'Secret/reglab-control-plane',
      'PersistentVolumeClaim/reglab-control-plane-state',
      'Deployment/reglab-control-plane',
      'Service/reglab-control-plane',
    ]);
    for (const object of all.slice(1)) expect(object.metadata.namespace).toBe('reglab-default');
    // the lab's `down` removes what carries its label: never the control plane, nor the namespace it lives in
    for (const object of all) expect(object.metadata.labels?.[LABELS.lab]).toBeUndefined();
  });

  it('grants a Role in the namespace what the runtime calls there: no ClusterRole, no port-forward by Service access', () => {
    const all = objects();
    expect(all.some((object) => object.kind.startsWith('Cluster'))).toBe(false);
    const rules = (ofKind(all, 'Role') as unknown as { rules: Record<string, string[]>[] }).rules;
    expect(rules).toEqual([
      { apiGroups: [''], resources: ['namespaces'], resourceNames: ['reglab-default'], verbs: ['get'] },
      { apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['default'], verbs: ['get'] },
      {
        apiGroups: [''],
        resources: ['pods'],
        verbs: ['get', 'list', 'watch', 'create', 'delete', 'deletecollection'],
      },
      { apiGroups: [''], resources: ['pods/exec'], verbs: ['get', 'create'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: [''], resources: ['services', 'persistentvolumeclaims'], verbs: ['list', 'create', 'delete'] },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
    ]);
    expect(ofKind(all, 'RoleBinding')).toMatchObject({
      roleRef: { kind: 'Role', name: 'reglab-control-plane' },
      subjects: [{ kind: 'ServiceAccount', name: 'reglab-control-plane', namespace: 'reglab-default' }],
    });
    expect(podSpec(all).serviceAccountName).toBe('reglab-control-plane');

    const forwarding = objects(clusterLab.replace('  storage_class: fast\n', '  access: port-forward\n'));
    expect((ofKind(forwarding, 'Role') as unknown as { rules: { resources: string[] }[] }).rules).toContainEqual({
      apiGroups: [''],
      resources: ['pods/portforward'],
      verbs: ['get', 'create'],
    });
  });

  it("gives it lab.yaml on the kubernetes runtime without this machine's kubeconfig and context, the rest kept", () => {
    const labYaml = (ofKind(objects(), 'ConfigMap') as unknown as { data: Record<string, string> }).data['lab.yaml'];
    expect(labYaml).toContain('# The default lab');
    const spec = parseLabSpec(labYaml);
    expect(spec.runtime).toBe('kubernetes');
    expect(spec.kubernetes).toEqual({ storage_class: 'fast' });
    expect(parse(inClusterLabYaml(defaultLab)).runtime).toBe('kubernetes');
    expect(parse(inClusterLabYaml(`${defaultLab}kubernetes:\n  kubeconfig: /k\n`)).kubernetes).toBeUndefined();
    // inside its pod, that lab reaches its services by their Services' names
    expect(kubernetesSettings(spec, { KUBERNETES_SERVICE_HOST: '10.96.0.1' })).toMatchObject({
      kubeconfig: undefined,
      access: 'service',
    });
  });

  it('runs `reglab serve` of the services image under its token, with probes on its API, requests and its state on a claim', () => {
    const all = objects();
    const deployment = ofKind(all, 'Deployment') as unknown as { spec: { replicas: number; strategy: unknown } };
    expect(deployment.spec).toMatchObject({ replicas: 1, strategy: { type: 'Recreate' } });
    const serve = container(all, 'control-plane');
    expect(serve).toMatchObject({ image: 'localhost/reglab-services:local', imagePullPolicy: 'Never' });
    expect(serve.command).toEqual([
      'reglab',
      'serve',
      '--listen',
      '0.0.0.0',
      '--port',
      '8080',
      '--up',
      '/etc/reglab/lab.yaml',
    ]);
    const env = Object.fromEntries((serve.env ?? []).map((variable) => [variable.name, variable]));
    expect(env.REGLAB_HOME.value).toBe('/state/reglab');
    expect(env.REGLAB_REDIS_URL.value).toBe('redis://127.0.0.1:6379');
    expect(env.REGLAB_TOKEN.valueFrom).toEqual({ secretKeyRef: { name: 'reglab-control-plane', key: 'token' } });
    for (const probe of [serve.readinessProbe, serve.livenessProbe, serve.startupProbe])
      expect(probe).toMatchObject({ httpGet: { path: '/health', port: 'http' } });
    expect(serve.resources.requests).toEqual({ cpu: '100m', memory: '192Mi' });
    expect(serve.volumeMounts).toEqual([
      { name: 'state', mountPath: '/state' },
      { name: 'lab', mountPath: '/etc/reglab', readOnly: true },
    ]);
    expect(podSpec(all).volumes).toEqual([
      { name: 'state', persistentVolumeClaim: { claimName: 'reglab-control-plane-state' } },
      { name: 'lab', configMap: { name: 'reglab-control-plane' } },
    ]);
    expect(ofKind(all, 'PersistentVolumeClaim')).toMatchObject({
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '2Gi' } } },
    });
    const token = (ofKind(all, 'Secret') as unknown as { stringData: { token: string } }).stringData.token;
    expect(token).toMatch(/^[\w-]{24}$/);
    expect((ofKind(objects(), 'Secret') as unknown as { stringData: { token: string } }).stringData.token).not.toBe(
      token,
    );
  });

  it("keeps the queues in a Redis sidecar that appends every write to the claim, handed to Redis's user first", () => {
    const all = objects(clusterLab.replace('  context: test\n', '  image_registry: registry.example/reglab\n'));
    const queues = container(all, 'queues');
    expect(queues).toMatchObject({
      image: 'registry.example/reglab/reglab-redis:local',
      imagePullPolicy: 'IfNotPresent',
      // a sidecar: up before the control plane starts, ended after it has stopped
      restartPolicy: 'Always',
      startupProbe: { exec: { command: ['redis-cli', '-p', '6379', 'ping'] } },
    });
    expect(queues.args?.join(' ')).toContain('--bind 127.0.0.1 --dir /data --save  --appendonly yes');
    expect(queues.volumeMounts).toEqual([{ name: 'state', mountPath: '/data', subPath: 'queues' }]);
    expect(podSpec(all).initContainers.map((one) => one.name)).toEqual(['queues-data-owner', 'queues']);
    expect(podSpec(all).initContainers[0]).toMatchObject({
      command: ['/bin/sh', '-c', 'chown redis: /data'],
      volumeMounts: [{ name: 'state', mountPath: '/data', subPath: 'queues' }],
    });
    expect(podSpec(all).containers.map((one) => one.name)).toEqual(['control-plane']);
    expect(container(all, 'control-plane').image).toBe('registry.example/reglab/reglab-services:local');
  });

  it('puts a Service in front of its API and dashboard: ClusterIP, or NodePort on the port asked', () => {
    expect(ofKind(objects(), 'Service')).toMatchObject({
      spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 8080, targetPort: 'http' }] },
    });
    expect(ofKind(objects(clusterLab, { nodePort: 30080 }), 'Service')).toMatchObject({
      spec: { type: 'NodePort', ports: [{ port: 8080, nodePort: 30080 }] },
    });
    expect(ofKind(objects(clusterLab, { stateSize: '10Gi' }), 'PersistentVolumeClaim')).toMatchObject({
      spec: { resources: { requests: { storage: '10Gi' } } },
    });
  });

  it('prints YAML kubectl reads back as the same objects, without anchors, with how to open the dashboard', () => {
    const text = renderControlPlane(clusterLab, 'lab.yaml', { token: 't0ken' });
    expect(text).toContain('port-forward service/reglab-control-plane 8080');
    expect(text).not.toMatch(/[&*]a\d/);
    const read = parseAllDocuments(text).map((document) => document.toJS({}) as Manifest);
    expect(read.map((object) => object.kind)).toEqual(objects().map((object) => object.kind));
    expect((ofKind(read, 'Secret') as unknown as { stringData: { token: string } }).stringData.token).toBe('t0ken');
  });

  it('refuses a lab with a service of its name', () => {
    const taken = defaultLab.replaceAll('carol', 'reglab-control-plane');
    expect(() => controlPlaneObjects(taken, 'lab.yaml')).toThrow(
      expect.objectContaining({ code: 'NAME_TAKEN', message: expect.stringContaining('reglab-control-plane') }),
    );
  });
});

describe('the lab from inside its namespace', () => {
  it("reaches each service by its Service's short name on its own port", () => {
    const lab = {
      name: 'x',
      dir: '/state/reglab/labs/x',
      services: {
        alice: { hostPorts: { grpc: 41000 }, containerPorts: { grpc: 10009 } },
        chain: { hostPorts: { rpc: 41001 }, containerPorts: { rpc: 18334 } },
      },
    };
    const placement = serviceHostPlacement(lab);
    expect(placement.reach('alice', 'grpc')).toBe('alice:10009');
    expect(placement.reach('chain', 'rpc')).toBe('chain:18334');
    expect(placement.dataDir).toBe('/state/reglab/labs/x');
  });

  it('refuses Service access from outside a pod of the lab namespace, saying what to do', () => {
    expect(serviceAccessProblem('reglab-x', 'reglab-x')).toBeUndefined();
    expect(serviceAccessProblem('reglab-x', undefined)).toMatch(/runs in no pod.*access: port-forward/);
    expect(serviceAccessProblem('reglab-x', 'tools')).toMatch(/runs in namespace tools.*--control-plane/);
    expect(podNamespace(join(tmpdir(), 'no-such-account'))).toBeUndefined();
  });
});

describe('reglab serve --up', () => {
  let home: string | undefined;
  afterEach(() => {
    if (home) rmSync(home, { recursive: true, force: true });
  });

  const managerWith = (labs: { name: string; status: string }[]) => {
    home ??= mkdtempSync(join(tmpdir(), 'reglab-at-start-'));
    const create = vi.fn(async () => undefined);
    return { manager: { home, list: () => labs, create } as unknown as LabManager, create };
  };

  it('brings the lab up at the first start, takes it back at the next, and leaves it down once taken down', async () => {
    const lab = { file: '/etc/reglab/lab.yaml', text: defaultLab, name: 'default' };
    const first = managerWith([]);
    expect(await upAtStart(first.manager, lab)).toBe('bringing lab default up from /etc/reglab/lab.yaml');
    expect(first.create).toHaveBeenCalledWith(defaultLab, '/etc/reglab/lab.yaml');
    expect(Object.keys(JSON.parse(readFileSync(join(home!, LABS_AT_START_FILE), 'utf8')))).toEqual(['default']);

    const again = managerWith([{ name: 'default', status: 'ready' }]);
    expect(await upAtStart(again.manager, lab)).toMatch(/in this control plane's state \(ready\): taken back/);
    expect(again.create).not.toHaveBeenCalled();

    const afterDown = managerWith([]);
    expect(await upAtStart(afterDown.manager, lab)).toMatch(/taken down since: it stays down/);
    expect(afterDown.create).not.toHaveBeenCalled();
  });

  it('refuses an invalid lab.yaml before the control plane starts, with its problems', () => {
    home = mkdtempSync(join(tmpdir(), 'reglab-at-start-'));
    const file = join(home, 'lab.yaml');
    writeFileSync(file, 'name: Bad Name\n');
    expect(() => readLabAtStart(file)).toThrow(expect.objectContaining({ code: 'INVALID_LAB_SPEC' }));
  });
});
