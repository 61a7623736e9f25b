import { hostPlacement } from '../host-placement.js';
import type { RuntimeOptions } from '../types.js';
import { processPlacement } from './placement.js';
import { ProcessRuntime } from './runtime.js';

/** The process runtime with its placements: everything on 127.0.0.1, so services and host see the same. */
export function processRuntimeOptions(): RuntimeOptions {
  return { runtime: new ProcessRuntime(), placementFor: processPlacement, hostPlacement };
}
