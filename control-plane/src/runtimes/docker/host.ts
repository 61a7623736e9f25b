import { hostPlacement } from '../host-placement.js';
import type { RuntimeOptions } from '../types.js';
import { dockerPlacement } from './placement.js';
import { createDockerRuntime, type DockerRuntimeOptions } from './runtime.js';

/**
 * The docker runtime with its placements: services see each other by name on the lab network;
 * this machine reaches them on their ports published on 127.0.0.1. Local images are built (or
 * found up to date) as services start, unless options say otherwise.
 */
export function dockerRuntimeOptions(options: DockerRuntimeOptions = {}): RuntimeOptions {
  return {
    runtime: createDockerRuntime({ buildImages: true, ...options }),
    placementFor: dockerPlacement,
    hostPlacement,
  };
}
