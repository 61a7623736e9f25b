// The Kubernetes objects of a lab, made from the same plan and launches as the other runtimes: a
// Namespace; for each service a Pod running its launch under the runner (docker/runner.ts), a
// Service by its name, and a PersistentVolumeClaim for its data unless its kind keeps none. Pure:
// the runtime creates these objects, `reglab render --kubernetes` prints them.
import { createHash } from 'node:crypto';
import type {
  V1Container,
  V1Namespace,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodSpec,
  V1ResourceRequirements,
  V1Service,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import type { ServiceResources } from '../../spec/types.js';
import { commandAfterEntrypoint } from '../container-command.js';
import { CONTAINER_DATA_DIR } from '../container-placement.js';
import { runnerEntrypoint } from '../docker/runner.js';
import type { LaunchSpec } from '../types.js';
import { ANNOTATIONS, claimName, containerName, dataPodName, LABELS, podName } from './names.js';
import type { PullPolicy } from './settings.js';

/** What every object of a lab carries. */
export interface LabObjectsOf {
  lab: string;
  namespace: string;
}

export interface ServiceObjectsOf extends LabObjectsOf {
  service: string;
  kind: string;
}

/** The image a service's pod runs, as the cluster pulls it, with what the pod needs to know of it. */
export interface PodImage {
  ref: string;
  pullPolicy: PullPolicy;
  /** Its ENTRYPOINT, which the pod runs under the runner. */
  entrypoint: string[];
  /** Its USER when not root: the data volume is handed to that user before the service starts. */
  user?: string;
}

export interface PodInput extends ServiceObjectsOf {
  launch: LaunchSpec;
  containerPorts: Record<string, number>;
  image: PodImage;
  /** What ends it when its data is about to be replaced (the runner's hold). */
  discardSignal: NodeJS.Signals;
  restartPolicy: 'on-failure' | 'always' | 'no';
  resources: ServiceResources;
  /** Keeps no data: /data is a folder of the pod's own (emptyDir), not a claim. */
  stateless: boolean;
  /** How long it has to stop after its stop signal (the docker runtime's stop timeout). */
  terminationGraceSeconds?: number;
  /**
   * The address (ClusterIP) of each other service of the lab, by name: the pod's /etc/hosts gives
   * them, as the docker runtime's containers get theirs. The cluster's DNS would answer too, but
   * caches its answers (CoreDNS: 30 s), so that a lab brought up again just after its `down` would
   * reach the addresses of the Services the `down` deleted, where nothing answers.
   */
  addresses?: Record<string, string>;
}

/**
 * Kubernetes expands $(NAME) in a container's command and environment, and reads $$ as $: each $
 * that would start either is doubled, so the launch reaches the service as written.
 */
export const literal = (text: string) => text.replace(/\$(?=[$(])/g, '$$$$');

const POD_RESTART_POLICY = { 'on-failure': 'OnFailure', always: 'Always', no: 'Never' } as const;
const VOLUME = 'data';

const labelsOf = (of: LabObjectsOf & Partial<ServiceObjectsOf>): Record<string, string> => ({
  [LABELS.lab]: of.lab,
  ...(of.service ? { [LABELS.service]: of.service } : {}),
  ...(of.kind ? { [LABELS.kind]: of.kind } : {}),
});

export function namespaceManifest(of: LabObjectsOf): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: of.namespace, labels: labelsOf(of) } };
}

/**
 * The service's Service, by its name: a stable address for the others whatever pod runs it now.
 * Not-ready addresses are published too: the pods have no readiness probe of the cluster's (the
 * control plane probes them), and a restarting node's peers keep dialling the same name.
 */
export function serviceManifest(of: ServiceObjectsOf, containerPorts: Record<string, number>): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: of.service, namespace: of.namespace, labels: labelsOf(of) },
    spec: {
      selector: { [LABELS.lab]: of.lab, [LABELS.service]: of.service },
      publishNotReadyAddresses: true,
      ports: Object.entries(containerPorts).map(([name, port]) => ({ name, port, targetPort: port, protocol: 'TCP' })),
    },
  };
}

export function claimManifest(
  of: ServiceObjectsOf,
  storage: { size: string; storageClass?: string },
): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claimName(of.service), namespace: of.namespace, labels: labelsOf(of) },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(storage.storageClass ? { storageClassName: storage.storageClass } : {}),
      resources: { requests: { storage: storage.size } },
    },
  };
}

/**
 * The pod that runs one service: its launch under the runner (the image's entry point and the
 * launch's arguments, as in a docker container), its ports named as its kind names them, its data
 * at /data, its restart policy the Pod's. A stop signal other than SIGTERM (PostgreSQL's SIGINT) is
 * sent by a preStop hook before the kubelet's SIGTERM, which the runner passes on too.
 */
export function podManifest(input: PodInput): V1Pod {
  const runner = runnerEntrypoint(
    [...input.image.entrypoint, ...commandAfterEntrypoint(input.launch)],
    input.discardSignal,
  );
  const [runnerVariable, ...script] = runner.env.split('=');
  const name = containerName(input.service);
  const stopSignal = input.launch.stopSignal;
  const container: V1Container = {
    name,
    image: input.image.ref,
    imagePullPolicy: input.image.pullPolicy,
    command: runner.Entrypoint.map(literal),
    env: [
      ...Object.entries(input.launch.env).map(([key, value]) => ({ name: key, value: literal(value) })),
      { name: runnerVariable, value: literal(script.join('=')) },
    ],
    ports: Object.entries(input.containerPorts).map(([portName, port]) => ({
      name: portName,
      containerPort: port,
      protocol: 'TCP',
    })),
    volumeMounts: [{ name: VOLUME, mountPath: CONTAINER_DATA_DIR }],
    resources: requirementsOf(input.resources),
    ...(stopSignal && stopSignal !== 'SIGTERM'
      ? {
          lifecycle: {
            preStop: { exec: { command: ['/bin/sh', '-c', `kill -s ${stopSignal.replace(/^SIG/, '')} 1`] } },
          },
        }
      : {}),
  };
  const volume: V1Volume = input.stateless
    ? { name: VOLUME, emptyDir: {} }
    : { name: VOLUME, persistentVolumeClaim: { claimName: claimName(input.service) } };
  const pod: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(input.service),
      namespace: input.namespace,
      labels: labelsOf(input),
      annotations: { [ANNOTATIONS.defaultContainer]: name },
    },
    spec: {
      restartPolicy: POD_RESTART_POLICY[input.restartPolicy],
      terminationGracePeriodSeconds: input.terminationGraceSeconds ?? 15,
      // a lab's services find each other by their Services' names, not by the environment
      // variables Kubernetes would add for every Service of the namespace
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      ...hostAliasesOf(input),
      ...(input.image.user && !input.stateless
        ? {
            initContainers: [
              dataOwner(input.image, `${input.service}-data-owner`, { name: VOLUME, mountPath: CONTAINER_DATA_DIR }),
            ],
          }
        : {}),
      containers: [container],
      volumes: [volume],
    },
  };
  pod.metadata!.annotations![ANNOTATIONS.launch] = launchDigest(pod);
  return pod;
}

/** The other services' names with their addresses, for the pod's /etc/hosts (its own name is its pod's, as on any pod). */
function hostAliasesOf(input: PodInput): Pick<V1PodSpec, 'hostAliases'> {
  const others = Object.entries(input.addresses ?? {})
    .filter(([name]) => name !== input.service)
    .sort(([a], [b]) => a.localeCompare(b));
  return others.length > 0 ? { hostAliases: others.map(([name, ip]) => ({ ip, hostnames: [name] })) } : {};
}

/** Requests and limits as a container takes them. */
export function requirementsOf(resources: ServiceResources): V1ResourceRequirements {
  const amounts = (of?: ServiceResources['requests']) =>
    of && Object.keys(of).length > 0 ? { ...(of as Record<string, string>) } : undefined;
  const requests = amounts(resources.requests);
  const limits = amounts(resources.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** A digest of what the pod runs: a pod found with another one is not taken back for this launch. */
export function launchDigest(pod: V1Pod): string {
  return createHash('sha256').update(JSON.stringify(pod.spec)).digest('hex');
}

/**
 * A new claim's folder belongs to root; an image whose service runs as another user (PostgreSQL,
 * Redis) gets it handed over first, as a docker volume takes the owner of the image's own /data: an
 * init container `name` of that image, with the folder mounted as `mount`.
 */
export function dataOwner(image: PodImage, name: string, mount: V1VolumeMount): V1Container {
  return {
    name,
    image: image.ref,
    imagePullPolicy: image.pullPolicy,
    command: ['/bin/sh', '-c', `chown ${image.user}: ${mount.mountPath}`],
    securityContext: { runAsUser: 0 },
    volumeMounts: [mount],
    resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
  };
}

/**
 * The pod that holds a stopped service's claim while a snapshot reads or writes it: the service's
 * own image (it has tar), sleeping, as the user that owns the data (root, to write any owner back).
 */
export function dataPodManifest(of: ServiceObjectsOf & { image: PodImage }): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    // not the service's labels: its Service must not send clients there
    metadata: {
      name: dataPodName(of.service),
      namespace: of.namespace,
      labels: { [LABELS.lab]: of.lab, [LABELS.dataOf]: of.service },
    },
    spec: {
      // the pod's name is no DNS label (it holds a dot, so that no service's pod can have it)
      hostname: 'reglab-data',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      containers: [
        {
          name: 'data',
          image: of.image.ref,
          imagePullPolicy: of.image.pullPolicy,
          command: ['sleep', 'infinity'],
          securityContext: { runAsUser: 0 },
          volumeMounts: [{ name: VOLUME, mountPath: CONTAINER_DATA_DIR }],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '256Mi' } },
        },
      ],
      volumes: [{ name: VOLUME, persistentVolumeClaim: { claimName: claimName(of.service) } }],
    },
  };
}
