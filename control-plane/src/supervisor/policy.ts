import type { ServiceState } from '../lab/state.js';
import type { ExitStatus } from '../runtimes/types.js';
import type { SupervisionSpec } from '../spec/types.js';

/**
 * A service that ends without being asked to has failed, whatever its exit code (lnd exits 0 when
 * its chain health check gives up): `on-failure` and `always` restart it, `no` leaves it down.
 */
export function wantsRestart(service: ServiceState): boolean {
  return service.restartPolicy !== 'no';
}

/** Restarts of the service within the supervision window (the limit counts these). */
export function recentRestarts(service: ServiceState, spec: SupervisionSpec, now = Date.now()): number {
  const since = now - spec.window_seconds * 1000;
  return service.restartTimes.filter((time) => Date.parse(time) >= since).length;
}

/** How often a restart is tried again while the runtime's engine does not answer (not counted as restarts). */
export const ENGINE_RETRY_MS = 2_000;

/** How often a restart waiting for a service it depends on looks again (not counted as restarts either). */
export const DEPENDENCY_RETRY_MS = 500;

/** 0.5 s before the first restart, doubling after each recent one, at most 30 s. */
export function backoffMs(recent: number): number {
  return Math.min(30_000, 500 * 2 ** recent);
}

/**
 * "killed by SIGKILL", "exited with code 1", or what is known; with the engine's reason and the
 * kubelet's restart count when it gives them ("killed by SIGKILL (restart count 1)").
 */
export function describeExit(exit: ExitStatus | undefined): string {
  if (!exit) return 'its process is gone';
  const how = exit.signal
    ? `killed by ${exit.signal}`
    : exit.code !== undefined
      ? `exited with code ${exit.code}`
      : (exit.reason ?? 'its process is gone');
  const details = [
    ...(exit.reason && how !== exit.reason ? [exit.reason] : []),
    ...(exit.restartCount !== undefined ? [`restart count ${exit.restartCount}`] : []),
  ];
  return details.length > 0 ? `${how} (${details.join(', ')})` : how;
}
