import type { LabDriverOptions } from '../lab/bring-up.js';
import type { LabSpec } from '../spec/types.js';
import { processRuntimeOptions } from './process/host.js';

export type RuntimeOptions = Pick<LabDriverOptions, 'runtime' | 'placementFor' | 'hostPlacement'>;

/** The runtime a lab asks for; the docker runtime (dockerode) is loaded only when a lab needs it. */
export async function runtimeOptionsFor(runtime: LabSpec['runtime']): Promise<RuntimeOptions> {
  if (runtime === 'process') return processRuntimeOptions();
  const { dockerRuntimeOptions } = await import('./docker/host.js');
  return dockerRuntimeOptions();
}
