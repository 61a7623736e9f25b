import type { Placement } from '../../kinds/types.js';
import type { LabDriverOptions } from '../../lab/bring-up.js';
import type { LabState } from '../../lab/state.js';
import { hostPlacement } from '../host-placement.js';
import { dockerPlacement } from './placement.js';
import { createDockerRuntime, type DockerRuntimeOptions } from './runtime.js';

const kindsOf = (lab: LabState) => Object.fromEntries(Object.values(lab.services).map((service) => [service.name, service.kind]));

/**
 * The docker runtime with its placements: services see each other by name on the lab network;
 * this machine reaches them on their ports published on 127.0.0.1. Local images are built (or
 * found up to date) as services start, unless options say otherwise.
 */
export function dockerRuntimeOptions(options: DockerRuntimeOptions = {}): Pick<LabDriverOptions, 'runtime' | 'placementFor' | 'hostPlacement'> {
  return {
    runtime: createDockerRuntime({ buildImages: true, ...options }),
    placementFor: (lab: LabState, service: string): Placement => dockerPlacement(lab.name, service, kindsOf(lab)),
    hostPlacement,
  };
}
