import type { RuntimeOptions } from './types.js';
import { processRuntimeOptions } from './process/host.js';

/** The runtime a lab asks for; the docker runtime (dockerode) is loaded only when a lab needs it. */
export async function runtimeOptionsFor(runtime: 'process' | 'docker'): Promise<RuntimeOptions> {
  if (runtime === 'process') return processRuntimeOptions();
  const { dockerRuntimeOptions } = await import('./docker/host.js');
  return dockerRuntimeOptions();
}
