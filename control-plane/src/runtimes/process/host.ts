import type { Placement } from '../../kinds/types.js';
import type { LabDriverOptions } from '../../lab/bring-up.js';
import { hostPortsByService, type LabState } from '../../lab/state.js';
import { hostPlacement } from '../host-placement.js';
import { processPlacement } from './placement.js';
import { ProcessRuntime } from './runtime.js';

/** The process runtime with its placements: everything on 127.0.0.1, so services and host see the same. */
export function processRuntimeOptions(): Pick<LabDriverOptions, 'runtime' | 'placementFor' | 'hostPlacement'> {
  const placement = (lab: LabState, service: string): Placement => processPlacement(lab.dir, service, hostPortsByService(lab));
  return { runtime: new ProcessRuntime(), placementFor: placement, hostPlacement };
}
