import type { LaunchSpec, Placement } from '../runtimes/types.js';

/**
 * V8's young generation at 1 MiB: a lab service holds little short-lived data, and the default
 * semi-spaces are most of the memory each process could save (bench:memory).
 */
const SERVICE_NODE_FLAGS = ['--max-semi-space-size=1'];

/**
 * For a process whose requests are few (the control plane, a faucet): V8's heuristics that favour
 * size over speed as well; not for a service under load, whose CPU per request they raise (the wallet
 * server: bench:wallet -- --vs lnbits). And no optimizing compiler (TurboFan): its code, and the pages
 * of the node binary it runs from, stay resident in each of those processes (bench:memory), and a
 * lab's bring-up through them is no slower without it (bench:lab-up).
 */
export const LOW_RATE_NODE_FLAGS = [...SERVICE_NODE_FLAGS, '--optimize-for-size', '--no-opt'];

/** One of the project's services: listens on HOST and PORT (its one named port), configured by env. */
export function projectService(
  entry: string,
  placement: Placement,
  portName: string,
  env: Record<string, string>,
  options: { lowRate?: boolean } = {},
): LaunchSpec {
  return {
    program: { type: 'service', entry, nodeFlags: options.lowRate ? LOW_RATE_NODE_FLAGS : SERVICE_NODE_FLAGS },
    args: [],
    env: { HOST: placement.listenHost, PORT: String(placement.port(portName)), NODE_ENV: 'production', ...env },
  };
}

/** What a probe of a project service's HTTP health route sees: ready on a 2xx. */
export async function answersHttp(url: string, options: { anyStatus?: boolean } = {}): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return options.anyStatus === true || response.ok;
}
