// The manifests builder: the objects a kubernetes lab is made of, from the same launches as the
// docker runtime's containers.
import { describe, expect, it } from 'vitest';
import { btcdLaunch } from '../../control-plane/src/nodes/btcd/launch.js';
import { lndLaunch } from '../../control-plane/src/nodes/lnd/launch.js';
import { postgres } from '../../control-plane/src/nodes/postgres/index.js';
import { kubernetesPlacement } from '../../control-plane/src/runtimes/kubernetes/host.js';
import { containerSpec } from '../../control-plane/src/runtimes/docker/container-spec.js';
import {
  claimManifest,
  dataPodManifest,
  namespaceManifest,
  type PodInput,
  podManifest,
  serviceManifest,
} from '../../control-plane/src/runtimes/kubernetes/manifests.js';
import type { LabLayout, LaunchSpec } from '../../control-plane/src/runtimes/types.js';

const layout: LabLayout = {
  name: 'k',
  dir: '/labs/k',
  services: {
    chain: { hostPorts: {}, containerPorts: { rpc: 18334, p2p: 18444 } },
    alice: { hostPorts: {}, containerPorts: { grpc: 10009, rest: 8080, p2p: 9735 } },
  },
};
const of = { lab: 'k', namespace: 'reglab-k' };
const aliceLaunch = lndLaunch(kubernetesPlacement(layout, 'alice'), {
  alias: 'alice',
  chainService: 'chain',
  chainRpcUser: 'u',
  chainRpcPassword: 'p',
  chainRpcCertPem: 'CERT',
  tlsExtraDomains: ['alice'],
});
const lndImage = {
  ref: 'localhost/reglab-lnd:local',
  pullPolicy: 'Never' as const,
  entrypoint: ['/usr/local/bin/lnd'],
};

function alicePod(overrides: Partial<PodInput> = {}) {
  return podManifest({
    ...of,
    service: 'alice',
    kind: 'lnd',
    launch: aliceLaunch,
    containerPorts: layout.services.alice.containerPorts,
    image: lndImage,
    discardSignal: 'SIGKILL',
    restartPolicy: 'on-failure',
    resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '768Mi' } },
    stateless: false,
    ...overrides,
  });
}

/**
 * Kubernetes' expansion of a command's and an environment's values (third_party/forked/golang/expansion),
 * with no variable defined: $$ is $, $(NAME) stays as it is, any other $ stays.
 */
function expandAsKubernetes(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '$') {
      out += '$';
      i++;
    } else out += text[i];
  }
  return out;
}

describe('kubernetes manifests', () => {
  it("runs a service's launch in its pod as the docker runtime runs it in a container: the runner, the entry point, the arguments", () => {
    const pod = alicePod();
    const container = pod.spec!.containers[0];
    const docker = containerSpec(
      {
        lab: { name: 'k', dir: '/labs/k' },
        service: 'alice',
        kind: 'lnd',
        image: 'lnd',
        launch: aliceLaunch,
        hostPorts: {},
        containerPorts: layout.services.alice.containerPorts,
      },
      { ref: lndImage.ref, id: 'sha256:x', entrypoint: lndImage.entrypoint },
      undefined,
    );
    expect(container.command).toEqual(docker.options.Entrypoint);
    expect(container.command!.slice(0, 5)).toEqual(['/bin/sh', '-c', 'eval "$REGLAB_RUNNER"', 'reglab-runner', 'KILL']);
    expect(container.command).toContain('/usr/local/bin/lnd');
    expect(container.command).toContain('--btcd.rpchost=chain:18334');
    const env = Object.fromEntries(container.env!.map((variable) => [variable.name, variable.value]));
    expect(env).toEqual(
      Object.fromEntries(
        docker.options.Env!.map((entry) => [entry.split('=')[0], entry.slice(entry.indexOf('=') + 1)]),
      ),
    );
    expect(env.GOGC).toBe('50');
  });

  it('passes $(NAME) and $$ to the service as written, where Kubernetes would expand them', () => {
    const written = ['--alias=$(HOME)', 'a$$b', '$x', '$$(y)', 'end$', '$(', 'pay $(now)'];
    const launch: LaunchSpec = { ...aliceLaunch, args: written, env: { MOTTO: 'pay $(now) $$' } };
    const container = alicePod({ launch }).spec!.containers[0];
    expect(container.command!.slice(-written.length).map(expandAsKubernetes)).toEqual(written);
    expect(expandAsKubernetes(container.env!.find((variable) => variable.name === 'MOTTO')!.value!)).toBe(
      'pay $(now) $$',
    );
    // the runner's script has neither: it is printed as it is
    expect(container.env!.find((variable) => variable.name === 'REGLAB_RUNNER')!.value).not.toContain('$$');
  });

  it('names the pod, its container and ports after the service, labels it, and keeps its data on its claim', () => {
    const pod = alicePod();
    expect(pod.metadata).toMatchObject({
      name: 'alice',
      namespace: 'reglab-k',
      labels: { 'reglab.lab': 'k', 'reglab.service': 'alice', 'reglab.kind': 'lnd' },
      annotations: { 'kubectl.kubernetes.io/default-container': 'alice' },
    });
    const container = pod.spec!.containers[0];
    expect(container).toMatchObject({ name: 'alice', image: 'localhost/reglab-lnd:local', imagePullPolicy: 'Never' });
    expect(container.ports).toEqual([
      { name: 'grpc', containerPort: 10009, protocol: 'TCP' },
      { name: 'rest', containerPort: 8080, protocol: 'TCP' },
      { name: 'p2p', containerPort: 9735, protocol: 'TCP' },
    ]);
    expect(container.volumeMounts).toEqual([{ name: 'data', mountPath: '/data' }]);
    expect(pod.spec!.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'alice-data' } }]);
    expect(container.resources).toEqual({ requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '768Mi' } });
    // services find each other by their Services' names, not by injected variables
    expect(pod.spec).toMatchObject({ enableServiceLinks: false, automountServiceAccountToken: false });
  });

  it("maps lab.yaml's restart policy to the Pod's", () => {
    expect(alicePod().spec!.restartPolicy).toBe('OnFailure');
    expect(alicePod({ restartPolicy: 'always' }).spec!.restartPolicy).toBe('Always');
    expect(alicePod({ restartPolicy: 'no' }).spec!.restartPolicy).toBe('Never');
  });

  it("stops PostgreSQL with its own signal and hands its claim to the image's user first", () => {
    const placement = kubernetesPlacement(
      { ...layout, services: { ...layout.services, postgres: { hostPorts: {}, containerPorts: { sql: 5432 } } } },
      'postgres',
    );
    const launch = postgres.launch(
      { placementFor: () => placement } as unknown as Parameters<typeof postgres.launch>[0],
      { name: 'postgres' } as Parameters<typeof postgres.launch>[1],
    );
    const pod = podManifest({
      ...of,
      service: 'postgres',
      kind: 'postgres',
      launch,
      containerPorts: { sql: 5432 },
      image: {
        ref: 'localhost/reglab-postgres:local',
        pullPolicy: 'Never',
        entrypoint: ['/usr/local/bin/reglab-postgres'],
        user: 'postgres',
      },
      discardSignal: 'SIGINT',
      restartPolicy: 'on-failure',
      resources: {},
      stateless: false,
    });
    expect(pod.spec!.containers[0].lifecycle).toEqual({
      preStop: { exec: { command: ['/bin/sh', '-c', 'kill -s INT 1'] } },
    });
    expect(pod.spec!.containers[0].command![4]).toBe('INT');
    expect(pod.spec!.initContainers).toEqual([
      expect.objectContaining({
        command: ['/bin/sh', '-c', 'chown postgres: /data'],
        securityContext: { runAsUser: 0 },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      }),
    ]);
    expect(pod.spec!.containers[0].resources).toEqual({});
    // a SIGTERM service needs no hook: the kubelet's SIGTERM reaches it through the runner
    expect(alicePod().spec!.containers[0].lifecycle).toBeUndefined();
  });

  it('gives a stateless service a folder of its own instead of a claim', () => {
    expect(alicePod({ stateless: true }).spec!.volumes).toEqual([{ name: 'data', emptyDir: {} }]);
  });

  it("tells the pod the other services' addresses in its /etc/hosts, not its own name's, and none without them", () => {
    const pod = alicePod({ addresses: { redis: '10.96.0.12', alice: '10.96.0.11', chain: '10.96.0.10' } });
    expect(pod.spec!.hostAliases).toEqual([
      { ip: '10.96.0.10', hostnames: ['chain'] },
      { ip: '10.96.0.12', hostnames: ['redis'] },
    ]);
    expect(alicePod().spec!.hostAliases).toBeUndefined();
    // Services made again (another address each) make another pod: one made for the old ones is not taken back
    const digest = (addresses: Record<string, string>) =>
      alicePod({ addresses }).metadata!.annotations!['reglab.launch'];
    expect(digest({ chain: '10.96.0.20' })).not.toBe(digest({ chain: '10.96.0.10' }));
  });

  it('digests the launch: the same launch, the same digest; another launch, another', () => {
    const digest = (pod: ReturnType<typeof alicePod>) => pod.metadata!.annotations!['reglab.launch'];
    expect(digest(alicePod())).toMatch(/^[0-9a-f]{64}$/);
    expect(digest(alicePod())).toBe(digest(alicePod()));
    const other: LaunchSpec = { ...aliceLaunch, args: [...aliceLaunch.args, '--debuglevel=debug'] };
    expect(digest(alicePod({ launch: other }))).not.toBe(digest(alicePod()));
    expect(digest(alicePod({ image: { ...lndImage, ref: 'r.example/reglab-lnd:local' } }))).not.toBe(
      digest(alicePod()),
    );
  });

  it("a Service per service: its name, its kind's ports, its pod selected, reached before the pod counts ready", () => {
    expect(serviceManifest({ ...of, service: 'chain', kind: 'btcd' }, layout.services.chain.containerPorts)).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'chain',
        namespace: 'reglab-k',
        labels: { 'reglab.lab': 'k', 'reglab.service': 'chain', 'reglab.kind': 'btcd' },
      },
      spec: {
        selector: { 'reglab.lab': 'k', 'reglab.service': 'chain' },
        publishNotReadyAddresses: true,
        ports: [
          { name: 'rpc', port: 18334, targetPort: 18334, protocol: 'TCP' },
          { name: 'p2p', port: 18444, targetPort: 18444, protocol: 'TCP' },
        ],
      },
    });
    // btcd reaches nothing, lnd reaches btcd by that name
    expect(
      btcdLaunch(kubernetesPlacement(layout, 'chain'), { rpcUser: 'u', rpcPassword: 'p', miningAddress: 'a' }).args,
    ).toContain('--rpclisten=0.0.0.0:18334');
  });

  it('a claim per service with data, of the storage class and size asked for; the namespace labelled as the lab', () => {
    expect(
      claimManifest({ ...of, service: 'alice', kind: 'lnd' }, { size: '2Gi', storageClass: 'local-path' }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: 'alice-data',
        namespace: 'reglab-k',
        labels: { 'reglab.lab': 'k', 'reglab.service': 'alice', 'reglab.kind': 'lnd' },
      },
      spec: {
        accessModes: ['ReadWriteOnce'],
        storageClassName: 'local-path',
        resources: { requests: { storage: '2Gi' } },
      },
    });
    expect(claimManifest({ ...of, service: 'alice', kind: 'lnd' }, { size: '1Gi' }).spec).not.toHaveProperty(
      'storageClassName',
    );
    expect(namespaceManifest(of)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'reglab-k', labels: { 'reglab.lab': 'k' } },
    });
  });

  it("a snapshot's data pod holds the claim as root under a name no service has, out of its Service's sight", () => {
    const pod = dataPodManifest({ ...of, service: 'alice', kind: 'lnd', image: lndImage });
    expect(pod.metadata).toEqual({
      name: 'alice.data',
      namespace: 'reglab-k',
      labels: { 'reglab.lab': 'k', 'reglab.data-of': 'alice' },
    });
    expect(pod.spec).toMatchObject({
      hostname: 'reglab-data',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
    });
    expect(pod.spec!.containers[0]).toMatchObject({
      command: ['sleep', 'infinity'],
      securityContext: { runAsUser: 0 },
    });
    expect(pod.spec!.volumes).toEqual([{ name: 'data', persistentVolumeClaim: { claimName: 'alice-data' } }]);
  });
});
