// The CPU and memory each service asks of the cluster. Requests are what the scheduler places labs
// by: about what a service uses once the lab is up, so that a workshop's labs spread over the nodes
// without holding cores they leave idle. Limits cap memory only: a lab's bring-up is a burst of CPU
// (a limit would throttle it), while a service that leaks is better restarted (OOMKilled, reported
// like any crash) than left to starve its neighbours.
import type { ServiceResources } from '../../spec/types.js';

const amounts = (cpu: string, memory: string, limit: string): ServiceResources => ({
  requests: { cpu, memory },
  limits: { memory: limit },
});

/** By kind; a kind not named here (the project's Node services) gets SERVICE_DEFAULT. */
const BY_KIND: Record<string, ServiceResources> = {
  btcd: amounts('50m', '64Mi', '512Mi'),
  lnd: amounts('50m', '96Mi', '768Mi'),
  ldk: amounts('50m', '64Mi', '512Mi'),
  rln: amounts('50m', '128Mi', '1Gi'),
  rgb: amounts('20m', '96Mi', '768Mi'),
  postgres: amounts('20m', '64Mi', '512Mi'),
  redis: amounts('10m', '16Mi', '256Mi'),
};
const SERVICE_DEFAULT = amounts('20m', '64Mi', '512Mi');

/**
 * A service's requests and limits: the built-in ones of its kind, then lab.yaml's
 * `kubernetes.resources` by `default`, by kind and by the service's name, each amount of a later
 * one replacing the same amount of an earlier one.
 */
export function resourcesFor(
  service: string,
  kind: string,
  configured: Record<string, ServiceResources> = {},
): ServiceResources {
  const layers = [BY_KIND[kind] ?? SERVICE_DEFAULT, configured.default, configured[kind], configured[service]];
  const merged: ServiceResources = {};
  for (const layer of layers) {
    for (const part of ['requests', 'limits'] as const) {
      if (layer?.[part]) merged[part] = { ...merged[part], ...layer[part] };
    }
  }
  return merged;
}
