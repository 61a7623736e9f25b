// lab.yaml's `kubernetes:` block with its defaults resolved (docs/kubernetes-runtime.md).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubernetesAccess, KubernetesSpec, LabSpec, ServiceResources } from '../../spec/types.js';
import { defaultNamespace } from './names.js';

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

export interface KubernetesSettings {
  /** The kubeconfig file; undefined: the pod's own service account (a control plane inside the cluster). */
  kubeconfig?: string;
  /** The kubeconfig's context; undefined: its current context. */
  context?: string;
  namespace: string;
  /** undefined: the cluster's default StorageClass. */
  storageClass?: string;
  storageSize: string;
  /** Where the lab's images are pulled from; undefined: they are on the nodes already (loaded, not pulled). */
  imageRegistry?: string;
  imagePullPolicy: PullPolicy;
  access: KubernetesAccess;
  resources: Record<string, ServiceResources>;
}

export const DEFAULT_STORAGE_SIZE = '1Gi';

/** Whether this process runs in a pod with a service account (`reglab serve` as a Deployment). */
export const runsInCluster = (env: NodeJS.ProcessEnv = process.env) => Boolean(env.KUBERNETES_SERVICE_HOST);

/** Where the kubelet puts a pod's service account, with the namespace the pod runs in. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The namespace of the pod this process runs in; undefined outside a pod (or without its service account). */
export function podNamespace(dir = SERVICE_ACCOUNT_DIR): string | undefined {
  try {
    return readFileSync(`${dir}/namespace`, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The lab's settings: the kubeconfig from lab.yaml, else $KUBECONFIG (its first file), else
 * ~/.kube/config, else none inside a pod; the namespace reglab-<lab>; images pulled only with a
 * registry (`Never` without one: they were loaded into the nodes); services reached through the
 * API server's port-forward from a kubeconfig's machine, by their Services' names from a pod that
 * uses its own service account (the control plane inside the cluster, next to the lab).
 */
export function kubernetesSettings(spec: Pick<LabSpec, 'name' | 'kubernetes'>, env = process.env): KubernetesSettings {
  const block: KubernetesSpec = spec.kubernetes ?? {};
  const inCluster = runsInCluster(env);
  const kubeconfig =
    block.kubeconfig?.replace(/^~(?=\/)/, homedir()) ??
    env.KUBECONFIG?.split(':').find(Boolean) ??
    (inCluster ? undefined : join(homedir(), '.kube', 'config'));
  return {
    kubeconfig,
    context: block.context,
    namespace: block.namespace ?? defaultNamespace(spec.name),
    storageClass: block.storage_class,
    storageSize: block.storage_size ?? DEFAULT_STORAGE_SIZE,
    imageRegistry: block.image_registry,
    imagePullPolicy: block.image_pull_policy ?? (block.image_registry ? 'IfNotPresent' : 'Never'),
    access: block.access ?? (kubeconfig === undefined ? 'service' : 'port-forward'),
    resources: block.resources ?? {},
  };
}

/** An image as the cluster pulls it: the same name under the registry (localhost/reglab-lnd:local -> REGISTRY/reglab-lnd:local). */
export function clusterImageRef(ref: string, registry: string | undefined): string {
  if (!registry) return ref;
  return `${registry.replace(/\/+$/, '')}/${ref.replace(/^localhost\//, '')}`;
}
