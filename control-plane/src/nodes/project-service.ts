import type { LaunchSpec, Placement } from '../runtimes/types.js';

/**
 * V8's young generation at 1 MiB: a lab service holds little short-lived data, and the default
 * semi-spaces cost each process tens of MiB (docs/benchmarks.md, bench:memory).
 */
const SERVICE_NODE_OPTIONS = '--max-semi-space-size=1';

/** One of the project's services: listens on HOST and PORT (its one named port), configured by env. */
export function projectService(entry: string, placement: Placement, portName: string, env: Record<string, string>): LaunchSpec {
  return {
    program: { type: 'service', entry },
    args: [],
    env: { HOST: placement.listenHost, PORT: String(placement.port(portName)), NODE_ENV: 'production', NODE_OPTIONS: SERVICE_NODE_OPTIONS, ...env },
  };
}

/** What a probe of a project service's HTTP health route sees: ready on a 2xx. */
export async function answersHttp(url: string, options: { anyStatus?: boolean } = {}): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await response.body?.cancel();
  return options.anyStatus === true || response.ok;
}
