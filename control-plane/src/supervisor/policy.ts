import type { ServiceState } from '../lab/state.js';
import type { ExitStatus } from '../runtimes/types.js';
import type { SupervisionSpec } from '../spec/types.js';

/** on-failure restarts anything but a clean exit (code 0); always restarts that too; no never does. */
export function wantsRestart(service: ServiceState, exit: ExitStatus | undefined): boolean {
  if (service.restartPolicy === 'no') return false;
  if (service.restartPolicy === 'always') return true;
  return !(exit?.code === 0 && exit.signal === undefined);
}

/** Restarts of the service within the supervision window (the limit counts these). */
export function recentRestarts(service: ServiceState, spec: SupervisionSpec, now = Date.now()): number {
  const since = now - spec.window_seconds * 1000;
  return service.restartTimes.filter((time) => Date.parse(time) >= since).length;
}

/** How often a restart is tried again while the runtime's engine does not answer (not counted as restarts). */
export const ENGINE_RETRY_MS = 2_000;

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
