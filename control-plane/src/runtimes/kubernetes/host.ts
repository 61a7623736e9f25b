import { containerPlacement } from '../container-placement.js';
import { hostPlacement } from '../host-placement.js';
import type { RuntimeOptions } from '../types.js';
import { KubernetesRuntime } from './runtime.js';
import type { KubernetesSettings } from './settings.js';

/**
 * The kubernetes runtime of one lab with its placements: services see each other by their
 * Services' names in the lab's namespace; this machine reaches them on 127.0.0.1 at their host
 * ports, each carried to its pod through the API server (port-forward.ts).
 */
export function kubernetesRuntimeOptions(lab: string, settings: KubernetesSettings): RuntimeOptions {
  return { runtime: new KubernetesRuntime({ lab, settings }), placementFor: containerPlacement, hostPlacement };
}
