// The objects one service of a lab is on a cluster, from its start request and the lab's settings:
// what the runtime creates when the service starts, and what `reglab render --kubernetes` prints.
import type { V1PersistentVolumeClaim, V1Pod, V1Service } from '@kubernetes/client-node';
import { RECIPES } from '../../images/catalog.js';
import type { ImageId } from '../../images/types.js';
import { kindDefinition, type ServiceKind } from '../../nodes/registry.js';
import { ImageUnavailableError, type StartRequest } from '../types.js';
import { claimManifest, type PodImage, podManifest, serviceManifest } from './manifests.js';
import { resourcesFor } from './resources.js';
import { clusterImageRef, type KubernetesSettings } from './settings.js';

export interface ServiceObjects {
  pod: V1Pod;
  service: V1Service;
  /** Its data's claim; none for a kind that keeps no data. */
  claim?: V1PersistentVolumeClaim;
}

/** The image a kind's pods run, as the cluster pulls it, with the entry point its recipe records. */
export function podImageOf(kind: string, recipe: ImageId, settings: KubernetesSettings): PodImage {
  const found = RECIPES[recipe];
  if (!found?.entrypoint)
    throw new ImageUnavailableError(kind, `the ${recipe} image has no entry point recorded in its recipe`);
  return {
    ref: clusterImageRef(found.ref, settings.imageRegistry),
    pullPolicy: settings.imagePullPolicy,
    entrypoint: found.entrypoint,
    ...(found.user ? { user: found.user } : {}),
  };
}

export function serviceObjects(
  request: StartRequest,
  settings: KubernetesSettings,
  options: { stopTimeoutSeconds?: number; addresses?: Record<string, string> } = {},
): ServiceObjects {
  const { service, kind } = request;
  const stateless = kindDefinition(kind as ServiceKind).stateless === true;
  const of = { lab: request.lab.name, namespace: settings.namespace, service, kind };
  return {
    pod: podManifest({
      ...of,
      launch: request.launch,
      containerPorts: request.containerPorts,
      image: podImageOf(kind, request.image as ImageId, settings),
      discardSignal: request.discardSignal ?? 'SIGKILL',
      restartPolicy: request.restartPolicy ?? 'on-failure',
      resources: resourcesFor(service, kind, settings.resources),
      stateless,
      terminationGraceSeconds: options.stopTimeoutSeconds,
      addresses: options.addresses,
    }),
    service: serviceManifest(of, request.containerPorts),
    ...(stateless
      ? {}
      : { claim: claimManifest(of, { size: settings.storageSize, storageClass: settings.storageClass }) }),
  };
}
