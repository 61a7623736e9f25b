// The control plane inside the cluster, next to its lab (docs/kubernetes-runtime.md, "The control
// plane inside the cluster"): a Deployment of one pod running `reglab serve` in the lab's namespace,
// under a service account whose Role grants what the kubernetes runtime calls there and nothing
// more, its state folder on a claim, its dashboard and API behind a Service. Pure: `reglab render
// --kubernetes --control-plane` prints these objects.
//
// None of them carries the lab's label (LABELS.lab): the lab's `down` removes the objects that do,
// and leaves the namespace, which reglab did not make, and the control plane in it.
import type {
  KubernetesObject,
  V1ConfigMap,
  V1Container,
  V1Deployment,
  V1Namespace,
  V1PersistentVolumeClaim,
  V1PolicyRule,
  V1Probe,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { SERVICES_IMAGE } from '../../images/recipes.js';
import type { ImageId } from '../../images/types.js';
import { redis } from '../../nodes/redis/index.js';
import { redisArgs } from '../../nodes/redis/server.js';
import type { KubernetesAccess } from '../../spec/types.js';
import { dataOwner, type PodImage, requirementsOf } from './manifests.js';

/** The name of every object of the control plane (its Deployment, Service, account, Role...). */
export const CONTROL_PLANE_NAME = 'reglab-control-plane';
/** The port its API and dashboard listen on, in its pod and on its Service. */
export const CONTROL_PLANE_PORT = 8080;
/** Where its claim is mounted: the state folder (REGLAB_HOME) and the queues' Redis data below it. */
const STATE_MOUNT = '/state';
export const CONTROL_PLANE_HOME = `${STATE_MOUNT}/reglab`;
/** The queues' Redis keeps its data here, in the claim (`subPath`), as the lab's Redis keeps its own. */
const QUEUES_SUBPATH = 'queues';
const QUEUES_PORT = 6379;
/** Where lab.yaml, from the ConfigMap, is read. */
const LAB_FOLDER = '/etc/reglab';
export const LAB_FILE = `${LAB_FOLDER}/lab.yaml`;
/** The ConfigMap's key for lab.yaml, and the Secret's for the token. */
const LAB_KEY = 'lab.yaml';
const TOKEN_KEY = 'token';
export const DEFAULT_STATE_SIZE = '2Gi';

/**
 * The images the control plane's pod runs, by what runs them: the services image (the project's
 * bundles on Node, with the dashboard's files) and Redis, for its queues.
 */
export const CONTROL_PLANE_IMAGES: Record<'control-plane' | 'queues', ImageId> = {
  'control-plane': SERVICES_IMAGE.id,
  queues: redis.image.id,
};

/** What the control plane's objects are made from. */
export interface ControlPlaneInput {
  lab: string;
  namespace: string;
  /** lab.yaml as the control plane reads it (runtime: kubernetes, no kubeconfig). */
  labYaml: string;
  /** The token its API and dashboard ask of actions and secrets. */
  token: string;
  /** How it reaches the lab's services: `service` needs no port-forward permission. */
  access: KubernetesAccess;
  images: { controlPlane: PodImage; queues: PodImage };
  storage: { size: string; storageClass?: string };
  /** Also open its Service on this port of every node (a NodePort Service). */
  nodePort?: number;
}

/** The labels of every object of the control plane; its pods are selected by them. */
export const controlPlaneLabels = (lab: string): Record<string, string> => ({
  'app.kubernetes.io/name': 'reglab',
  'app.kubernetes.io/component': 'control-plane',
  'app.kubernetes.io/instance': lab,
});

/**
 * What the kubernetes runtime calls in the lab's namespace (runtimes/kubernetes: lab-objects.ts,
 * runtime.ts, pod-watch.ts, exec.ts, port-forward.ts), and only that. A Role, not a ClusterRole:
 * the namespace exists before the control plane (it is in the same manifests), and volumes are
 * deleted with their claims by a StorageClass whose reclaim policy is Delete, so nothing outside
 * the namespace is touched. exec and port-forward are websockets: a GET, which the API server
 * authorizes as `get` and, since Kubernetes 1.30, as `create` too.
 */
export function controlPlaneRules(namespace: string, access: KubernetesAccess): V1PolicyRule[] {
  const core = (resources: string[], verbs: string[], resourceNames?: string[]): V1PolicyRule => ({
    apiGroups: [''],
    resources,
    ...(resourceNames ? { resourceNames } : {}),
    verbs,
  });
  return [
    // that the lab's namespace is there and not being deleted, then that it takes pods (its default account)
    core(['namespaces'], ['get'], [namespace]),
    core(['serviceaccounts'], ['get'], ['default']),
    // each service's pod, its watch (supervision), a snapshot's data pods, and what `down` removes
    core(['pods'], ['get', 'list', 'watch', 'create', 'delete', 'deletecollection']),
    // files read in a service's container (certificates, macaroons), kill, snapshots' archives
    core(['pods/exec'], ['get', 'create']),
    core(['pods/log'], ['get']),
    ...(access === 'port-forward' ? [core(['pods/portforward'], ['get', 'create'])] : []),
    core(['services', 'persistentvolumeclaims'], ['list', 'create', 'delete']),
    // whether a service's Service routes to its new pod yet, before what depends on it starts
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list'] },
  ];
}

const httpProbe = (periodSeconds: number, failureThreshold: number): V1Probe => ({
  httpGet: { path: '/health', port: 'http' },
  periodSeconds,
  timeoutSeconds: 5,
  failureThreshold,
});

function controlPlaneContainer(input: ControlPlaneInput): V1Container {
  const home = { name: 'REGLAB_HOME', value: CONTROL_PLANE_HOME };
  return {
    name: 'control-plane',
    image: input.images.controlPlane.ref,
    imagePullPolicy: input.images.controlPlane.pullPolicy,
    command: ['reglab', 'serve', '--listen', '0.0.0.0', '--port', String(CONTROL_PLANE_PORT), '--up', LAB_FILE],
    env: [
      home,
      { name: 'REGLAB_REDIS_URL', value: `redis://127.0.0.1:${QUEUES_PORT}` },
      { name: 'REGLAB_TOKEN', valueFrom: { secretKeyRef: { name: CONTROL_PLANE_NAME, key: TOKEN_KEY } } },
      // the CLI run in this container (`kubectl exec ... -- reglab status`) asks this control plane
      { name: 'REGLAB_URL', value: `http://127.0.0.1:${CONTROL_PLANE_PORT}` },
    ],
    ports: [{ name: 'http', containerPort: CONTROL_PLANE_PORT, protocol: 'TCP' }],
    // it takes its labs back before it listens: a lab of many services takes a while
    startupProbe: httpProbe(2, 150),
    readinessProbe: httpProbe(5, 3),
    livenessProbe: httpProbe(10, 6),
    resources: requirementsOf({ requests: { cpu: '100m', memory: '192Mi' }, limits: { memory: '1Gi' } }),
    volumeMounts: [
      { name: 'state', mountPath: STATE_MOUNT },
      { name: 'lab', mountPath: LAB_FOLDER, readOnly: true },
    ],
  };
}

/**
 * The queues' Redis (BullMQ), beside the control plane in its pod, keeping every write on the claim:
 * a sidecar (an init container that keeps running), so that it answers before the control plane
 * starts and outlives it when the pod ends, while the control plane closes its queues.
 */
function queuesContainer(input: ControlPlaneInput): V1Container {
  return {
    name: 'queues',
    image: input.images.queues.ref,
    imagePullPolicy: input.images.queues.pullPolicy,
    restartPolicy: 'Always',
    // after the image's entry point (redis-server): loopback only, every write appended to its file
    args: redisArgs('/data', QUEUES_PORT, '127.0.0.1', true),
    startupProbe: {
      exec: { command: ['redis-cli', '-p', String(QUEUES_PORT), 'ping'] },
      periodSeconds: 1,
      failureThreshold: 60,
    },
    resources: requirementsOf({ requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '256Mi' } }),
    volumeMounts: [{ name: 'state', mountPath: '/data', subPath: QUEUES_SUBPATH }],
  };
}

function deployment(input: ControlPlaneInput): V1Deployment {
  const labels = controlPlaneLabels(input.lab);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: CONTROL_PLANE_NAME, namespace: input.namespace, labels },
    spec: {
      replicas: 1,
      // one control plane per state folder: the old pod is gone before the new one mounts the claim
      strategy: { type: 'Recreate' },
      selector: { matchLabels: labels },
      template: {
        metadata: { labels, annotations: { 'kubectl.kubernetes.io/default-container': 'control-plane' } },
        spec: {
          serviceAccountName: CONTROL_PLANE_NAME,
          automountServiceAccountToken: true,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          initContainers: [
            ...(input.images.queues.user
              ? [
                  dataOwner(input.images.queues, 'queues-data-owner', {
                    name: 'state',
                    mountPath: '/data',
                    subPath: QUEUES_SUBPATH,
                  }),
                ]
              : []),
            queuesContainer(input),
          ],
          containers: [controlPlaneContainer(input)],
          volumes: [
            { name: 'state', persistentVolumeClaim: { claimName: `${CONTROL_PLANE_NAME}-state` } },
            { name: 'lab', configMap: { name: CONTROL_PLANE_NAME } },
          ],
        },
      },
    },
  };
}

/**
 * Every object of the control plane, in the order they are applied: the namespace, its account and
 * permissions, lab.yaml and the token, the state's claim, the Deployment, the Service.
 */
export function controlPlaneManifests(input: ControlPlaneInput): KubernetesObject[] {
  const labels = controlPlaneLabels(input.lab);
  const metadata = { name: CONTROL_PLANE_NAME, namespace: input.namespace, labels };
  const namespace: V1Namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: input.namespace,
      labels: { 'app.kubernetes.io/name': 'reglab', 'app.kubernetes.io/instance': input.lab },
    },
  };
  const account: V1ServiceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata };
  const role: V1Role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata,
    rules: controlPlaneRules(input.namespace, input.access),
  };
  const binding: V1RoleBinding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata,
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CONTROL_PLANE_NAME },
    subjects: [{ kind: 'ServiceAccount', name: CONTROL_PLANE_NAME, namespace: input.namespace }],
  };
  const labFile: V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { [LAB_KEY]: input.labYaml } };
  const token: V1Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata,
    type: 'Opaque',
    stringData: { [TOKEN_KEY]: input.token },
  };
  const state: V1PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { ...metadata, name: `${CONTROL_PLANE_NAME}-state` },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...(input.storage.storageClass ? { storageClassName: input.storage.storageClass } : {}),
      resources: { requests: { storage: input.storage.size } },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: {
      type: input.nodePort === undefined ? 'ClusterIP' : 'NodePort',
      selector: labels,
      ports: [
        {
          name: 'http',
          port: CONTROL_PLANE_PORT,
          targetPort: 'http',
          protocol: 'TCP',
          ...(input.nodePort === undefined ? {} : { nodePort: input.nodePort }),
        },
      ],
    },
  };
  return [namespace, account, role, binding, labFile, token, state, deployment(input), service];
}
