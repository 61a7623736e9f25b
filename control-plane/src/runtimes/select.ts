import type { LabSpec } from '../spec/types.js';
import type { EngineReach, RuntimeOptions } from './types.js';
import { processRuntimeOptions } from './process/host.js';

/**
 * One docker runtime per process: it checks each image's pin once (a check waits for the
 * machine-wide build lock and hashes the build context), not at every bring-up, reset or snapshot.
 */
let dockerRuntime: Promise<RuntimeOptions> | undefined;

/**
 * A kubernetes runtime per lab and settings: each lab.yaml names its cluster and namespace, and its
 * runtime holds the lab's pod watch and port-forwards.
 */
const kubernetesRuntimes = new Map<string, Promise<RuntimeOptions>>();

/** What names a lab's runtime: its name, its runtime, and for kubernetes its block of lab.yaml. */
export type RuntimeOf = Pick<LabSpec, 'name' | 'runtime' | 'kubernetes'>;

/** The runtime a lab asks for; the docker (dockerode) and kubernetes (client-node) ones are loaded only when a lab needs them. */
export async function runtimeOptionsFor(spec: RuntimeOf): Promise<RuntimeOptions> {
  if (spec.runtime === 'process') return processRuntimeOptions();
  if (spec.runtime === 'docker') {
    dockerRuntime ??= import('./docker/host.js').then(({ dockerRuntimeOptions }) => dockerRuntimeOptions());
    return dockerRuntime;
  }
  const key = `${spec.name}\n${JSON.stringify(spec.kubernetes ?? {})}`;
  let options = kubernetesRuntimes.get(key);
  if (!options) {
    options = import('./kubernetes/index.js').then(({ kubernetesRuntimeOptions, kubernetesSettings }) =>
      kubernetesRuntimeOptions(spec.name, kubernetesSettings(spec)),
    );
    kubernetesRuntimes.set(key, options);
  }
  return options;
}

/** What a lab's runtime last heard from its container engine or cluster (process labs have none). */
export async function engineReachOf(spec: RuntimeOf): Promise<EngineReach | undefined> {
  if (spec.runtime === 'process') return undefined;
  return (await runtimeOptionsFor(spec)).runtime.engineReach?.();
}
