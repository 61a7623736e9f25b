// Creating and removing a lab's objects on the cluster: its namespace, each service's Service and
// claim, its pods; and taking all of it away again, claims and volumes included.
import type { V1EndpointSliceList, V1Pod } from '@kubernetes/client-node';
import { sleep, waitFor } from '../../../../lib/wait.js';
import { type Cluster, ignoreNotFound, isConflict, isNotFound, statusOf } from './client.js';
import type { claimManifest, namespaceManifest, serviceManifest } from './manifests.js';
import { claimName, LABELS, labSelector } from './names.js';

/** How long a lab's namespace, claims and volumes get to be gone after their deletion. */
const REMOVAL_TIMEOUT_MS = 180_000;

/** Creates the object; one of that name already there is kept. */
async function createUnlessThere(create: () => Promise<unknown>): Promise<void> {
  await create().catch((error: unknown) => {
    if (!isConflict(error)) throw error;
  });
}

/**
 * The namespace, made when missing; answers once it takes pods: the cluster refuses a pod until the
 * namespace's default service account exists (its controller makes it a moment after the namespace).
 */
export async function ensureNamespace(cluster: Cluster, manifest: ReturnType<typeof namespaceManifest>): Promise<void> {
  const name = manifest.metadata!.name!;
  for (;;) {
    const existing = await cluster.core.readNamespace({ name }).catch((error: unknown) => {
      ignoreNotFound(error);
      return undefined;
    });
    if (!existing) {
      await createUnlessThere(() => cluster.core.createNamespace({ body: manifest }));
      break;
    }
    // a namespace still being deleted (the last lab's) takes nothing new: wait until it is gone
    if (existing.status?.phase !== 'Terminating') break;
    await sleep(500);
  }
  await waitFor(
    () =>
      cluster.core.readNamespacedServiceAccount({ name: 'default', namespace: name }).then(
        () => true,
        (error: unknown) => {
          ignoreNotFound(error);
          return false;
        },
      ),
    { timeoutMs: 60_000, intervalMs: 100, what: `the default service account of namespace ${name}` },
  );
}

export const ensureService = (cluster: Cluster, manifest: ReturnType<typeof serviceManifest>) =>
  createUnlessThere(() =>
    cluster.core.createNamespacedService({ namespace: manifest.metadata!.namespace!, body: manifest }),
  );

/**
 * The address (ClusterIP) of each of the lab's Services, by service name: what each pod is told the
 * names of the others stand for (manifests.ts, hostAliases).
 */
export async function serviceAddresses(
  cluster: Cluster,
  namespace: string,
  lab: string,
): Promise<Record<string, string>> {
  const services = await cluster.core.listNamespacedService({ namespace, labelSelector: labSelector(lab) });
  const addresses: Record<string, string> = {};
  for (const service of services.items) {
    const name = service.metadata?.labels?.[LABELS.service];
    const ip = service.spec?.clusterIP;
    if (name && ip && ip !== 'None') addresses[name] = ip;
  }
  return addresses;
}

/**
 * Whether the Service `service` routes to the pod of uid `podUid`: one of its EndpointSlices lists
 * that pod, ready, with an address. An account that may not read EndpointSlices cannot tell: true.
 */
export async function serviceRoutesTo(
  cluster: Cluster,
  namespace: string,
  service: string,
  podUid: string,
): Promise<boolean> {
  let slices: V1EndpointSliceList;
  try {
    slices = await cluster.discovery.listNamespacedEndpointSlice({
      namespace,
      labelSelector: `kubernetes.io/service-name=${service}`,
    });
  } catch (error) {
    if (statusOf(error) === 403) return true;
    throw error;
  }
  return slices.items.some((slice) =>
    (slice.endpoints ?? []).some(
      (endpoint) =>
        endpoint.targetRef?.uid === podUid && endpoint.addresses.length > 0 && endpoint.conditions?.ready !== false,
    ),
  );
}

export const ensureClaim = (cluster: Cluster, manifest: ReturnType<typeof claimManifest>) =>
  createUnlessThere(() =>
    cluster.core.createNamespacedPersistentVolumeClaim({ namespace: manifest.metadata!.namespace!, body: manifest }),
  );

/** The pod by name, or undefined. */
export function readPod(cluster: Cluster, namespace: string, name: string): Promise<V1Pod | undefined> {
  return cluster.core.readNamespacedPod({ name, namespace }).catch((error: unknown) => {
    ignoreNotFound(error);
    return undefined;
  });
}

/**
 * Deletes the pod (that one, by its uid, when given) with `graceSeconds` to stop, and waits until
 * it is gone, so that a new pod of its name can be made and its claim is free.
 */
export async function deletePod(
  cluster: Cluster,
  namespace: string,
  name: string,
  options: { graceSeconds: number; uid?: string },
): Promise<void> {
  await cluster.core
    .deleteNamespacedPod({
      name,
      namespace,
      gracePeriodSeconds: options.graceSeconds,
      body: options.uid ? { preconditions: { uid: options.uid } } : {},
    })
    .catch((error: unknown) => {
      // 409: a precondition failed, another pod of that name is there now (not this one to delete)
      if (!isNotFound(error) && !isConflict(error)) throw error;
    });
  await waitFor(
    async () => {
      const pod = await readPod(cluster, namespace, name);
      return !pod || (options.uid !== undefined && pod.metadata?.uid !== options.uid);
    },
    { timeoutMs: (options.graceSeconds + 60) * 1000, intervalMs: 100, what: `pod ${namespace}/${name} to be gone` },
  );
}

/**
 * Removes every object of the lab from its namespace (but the claims of `keepClaimsOf`); with
 * `namespace`, the namespace too when reglab made it, and waits until it, its claims and the
 * volumes bound to them are gone.
 */
export async function removeLabObjects(
  cluster: Cluster,
  lab: string,
  namespace: string,
  options: { keepClaimsOf?: readonly string[]; namespace: boolean },
): Promise<void> {
  const labelSelector = labSelector(lab);
  const ours = await cluster.core.readNamespace({ name: namespace }).catch((error: unknown) => {
    ignoreNotFound(error);
    return undefined;
  });
  if (!ours) return;
  const volumes = await boundVolumes(cluster, namespace);
  if (options.namespace && ours.metadata?.labels?.[LABELS.lab] === lab) {
    await cluster.core.deleteNamespace({ name: namespace }).catch(ignoreNotFound);
    await waitFor(async () => !(await namespaceExists(cluster, namespace)), {
      timeoutMs: REMOVAL_TIMEOUT_MS,
      intervalMs: 250,
      what: `namespace ${namespace} to be deleted`,
    });
  } else {
    await cluster.core.deleteCollectionNamespacedPod({ namespace, labelSelector, gracePeriodSeconds: 0 });
    for (const service of (await cluster.core.listNamespacedService({ namespace, labelSelector })).items)
      await cluster.core.deleteNamespacedService({ name: service.metadata!.name!, namespace }).catch(ignoreNotFound);
    const claims = (await cluster.core.listNamespacedPersistentVolumeClaim({ namespace, labelSelector })).items;
    for (const claim of claims) {
      if (options.keepClaimsOf?.includes(claim.metadata?.labels?.[LABELS.service] ?? '')) continue;
      await cluster.core
        .deleteNamespacedPersistentVolumeClaim({ name: claim.metadata!.name!, namespace })
        .catch(ignoreNotFound);
    }
    await waitFor(async () => (await cluster.core.listNamespacedPod({ namespace, labelSelector })).items.length === 0, {
      timeoutMs: REMOVAL_TIMEOUT_MS,
      intervalMs: 200,
      what: `the pods of lab ${lab} to be gone`,
    });
  }
  const kept = new Set((options.keepClaimsOf ?? []).map(claimName));
  await removeVolumes(
    cluster,
    volumes.filter((volume) => !kept.has(volume.claim)).map((volume) => volume.name),
  );
}

const namespaceExists = (cluster: Cluster, name: string) =>
  cluster.core.readNamespace({ name }).then(
    () => true,
    (error: unknown) => {
      ignoreNotFound(error);
      return false;
    },
  );

/** The volumes bound to claims of the namespace; none when listing volumes is not allowed (a namespaced account). */
async function boundVolumes(cluster: Cluster, namespace: string): Promise<{ name: string; claim: string }[]> {
  try {
    const volumes = await cluster.core.listPersistentVolume();
    return volumes.items
      .filter((volume) => volume.spec?.claimRef?.namespace === namespace)
      .map((volume) => ({ name: volume.metadata!.name!, claim: volume.spec!.claimRef!.name! }));
  } catch (error) {
    if (statusOf(error) === 403) return [];
    throw error;
  }
}

/**
 * Waits until the volumes the lab's claims were bound to are gone (a provisioner deletes them with
 * their claims); one kept by its Retain policy is deleted here, so that nothing of the lab stays.
 */
async function removeVolumes(cluster: Cluster, names: string[]): Promise<void> {
  for (const name of names) {
    await waitFor(
      async () => {
        const volume = await cluster.core.readPersistentVolume({ name }).catch((error: unknown) => {
          ignoreNotFound(error);
          return undefined;
        });
        if (!volume) return true;
        if (volume.status?.phase === 'Released' && volume.spec?.persistentVolumeReclaimPolicy === 'Retain')
          await cluster.core.deletePersistentVolume({ name }).catch(ignoreNotFound);
        return false;
      },
      { timeoutMs: REMOVAL_TIMEOUT_MS, intervalMs: 250, what: `volume ${name} to be deleted with its claim` },
    );
  }
}
