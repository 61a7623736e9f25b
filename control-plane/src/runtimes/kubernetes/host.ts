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
 * The kubernetes runtime of one lab with its placements: services see each other by their
 * Services' names in the lab's namespace; this machine reaches them on 127.0.0.1 at their host
 * ports, each carried to its pod through the API server (port-forward.ts).
 */
export function kubernetesRuntimeOptions(lab: string, settings: KubernetesSettings): RuntimeOptions {
  return { runtime: new KubernetesRuntime({ lab, settings }), placementFor: kubernetesPlacement, hostPlacement };
}
