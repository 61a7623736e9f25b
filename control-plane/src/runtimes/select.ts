import type { EngineReach, RuntimeOptions } from './types.js';
import { processRuntimeOptions } from './process/host.js';

/**
 * One docker runtime per process: it checks each image's pin once (a check waits for the
 * machine-wide build lock and hashes the build context), not at every bring-up, reset or snapshot.
 */
let dockerRuntime: Promise<RuntimeOptions> | undefined;

/** The runtime a lab asks for; the docker runtime (dockerode) is loaded only when a lab needs it. */
export async function runtimeOptionsFor(runtime: 'process' | 'docker'): Promise<RuntimeOptions> {
  if (runtime === 'process') return processRuntimeOptions();
  dockerRuntime ??= import('./docker/host.js').then(({ dockerRuntimeOptions }) => dockerRuntimeOptions());
  return dockerRuntime;
}

/** What a lab's runtime last heard from its container engine (docker labs; process labs have none). */
export async function engineReachOf(runtime: 'process' | 'docker'): Promise<EngineReach | undefined> {
  if (runtime === 'process') return undefined;
  return (await runtimeOptionsFor(runtime)).runtime.engineReach?.();
}
