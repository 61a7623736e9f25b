import { containerPlacement } from '../container-placement.js';
import { hostPlacement } from '../host-placement.js';
import type { LabLayout, Placement, RuntimeOptions } from '../types.js';
import { KubernetesRuntime } from './runtime.js';
import type { KubernetesSettings } from './settings.js';

/**
 * How a service sees the world in a kubernetes lab (container-placement.ts). What this machine sends
 * it comes from the pod's own loopback: the kubelet's port-forward connects there.
 */
export const kubernetesPlacement = (lab: LabLayout, service: string): Placement =>
  containerPlacement(lab, service, 'loopback');

/**
 * How a control plane in a pod of the lab's namespace reaches the lab's services: as the services
 * reach each other, by their Services' names on their own ports (the names lnd's and btcd's
 * certificates carry), with no port-forward through the API server.
 */
export function serviceHostPlacement(lab: LabLayout): Placement {
  return {
    ...hostPlacement(lab),
    reach: (service, portName) => kubernetesPlacement(lab, service).reach(service, portName),
  };
}

/**
 * The kubernetes runtime of one lab with its placements: services see each other by their
 * Services' names in the lab's namespace; the control plane reaches them on 127.0.0.1 at their host
 * ports, each carried to its pod through the API server (port-forward.ts), or, from a pod next to
 * them (`access: service`), by those names too.
 */
export function kubernetesRuntimeOptions(lab: string, settings: KubernetesSettings): RuntimeOptions {
  return {
    runtime: new KubernetesRuntime({ lab, settings }),
    placementFor: kubernetesPlacement,
    hostPlacement: settings.access === 'service' ? serviceHostPlacement : hostPlacement,
  };
}
