import type { LabDriverOptions } from '../lab/bring-up.js';
import type { LabSpec } from '../spec/types.js';
import { processRuntimeOptions } from './process/host.js';

export type RuntimeOptions = Pick<LabDriverOptions, 'runtime' | 'placementFor' | 'hostPlacement'>;

export async function runtimeOptionsFor(runtime: LabSpec['runtime']): Promise<RuntimeOptions> {
  if (runtime === 'process') return processRuntimeOptions();
  throw new Error('the docker runtime is not wired yet');
}
