import { rmSync } from 'node:fs';
import type { Runtime } from '../runtimes/types.js';
import type { LabEventListener } from './events.js';
import { kindDefinition } from '../nodes/registry.js';
import { discardSignalOf } from '../nodes/types.js';
import { setStatus, type LabState, type ServiceState } from './state.js';

/**
 * Stops every service, dependents before what they depend on, then removes the lab's resources
 * and folder: nothing of the lab is left running or listening. Answers the containers not of the
 * lab that were disconnected from its network (docker), by name.
 */
export async function tearDown(
  lab: LabState,
  runtime: Runtime,
  options: { volumes: boolean; onEvent?: LabEventListener },
): Promise<string[]> {
  lab.status = 'stopping';
  await stopServices(lab, runtime, options);
  const detached = await runtime.removeLab({ name: lab.name, dir: lab.dir }, { volumes: options.volumes });
  rmSync(lab.dir, { recursive: true, force: true });
  lab.status = 'stopped';
  options.onEvent?.({ type: 'lab', lab: lab.name, status: 'stopped' });
  return detached;
}

/**
 * Removes the lab's folder without asking its runtime anything (its container engine is gone): what
 * runs in that engine is left there.
 */
export function forgetLab(lab: LabState, onEvent?: LabEventListener): void {
  for (const service of Object.values(lab.services)) markStopped(lab, service, onEvent);
  rmSync(lab.dir, { recursive: true, force: true });
  lab.status = 'stopped';
  onEvent?.({ type: 'lab', lab: lab.name, status: 'stopped' });
}

/**
 * Stops every service (but those named in `except`) cleanly, dependents before what they depend
 * on, so each one's data is at rest when it stops; `beforeStop` runs on each while it still runs.
 */
export async function stopServices(
  lab: LabState,
  runtime: Runtime,
  options: { onEvent?: LabEventListener; beforeStop?: (service: ServiceState) => Promise<void>; except?: string[] },
): Promise<void> {
  for (const wave of stopWaves(
    Object.values(lab.services).filter((service) => !options.except?.includes(service.name)),
  )) {
    await Promise.all(
      wave.map(async (service) => {
        if (service.handle) {
          await options.beforeStop?.(service);
          await runtime.stop(service.handle, kindDefinition(service.kind).stopSignal);
        }
        markStopped(lab, service, options.onEvent);
      }),
    );
  }
}

/**
 * Ends every service at once, for a lab whose data is about to be replaced (a reset to its
 * snapshot): killed without waiting for a clean stop, but for the kinds that must stop cleanly.
 * `hold` may end a service itself and answer true (docker: its container kept for the restart).
 */
export async function discardServices(
  lab: LabState,
  runtime: Runtime,
  options: { onEvent?: LabEventListener; hold?: (service: ServiceState) => Promise<boolean> },
): Promise<void> {
  await Promise.all(
    Object.values(lab.services).map(async (service) => {
      const kind = kindDefinition(service.kind);
      if (service.handle && !(await options.hold?.(service))) {
        await (discardSignalOf(kind) === 'SIGKILL'
          ? runtime.kill(service.handle)
          : runtime.stop(service.handle, kind.stopSignal));
      }
      markStopped(lab, service, options.onEvent);
    }),
  );
}

function markStopped(lab: LabState, service: ServiceState, onEvent: LabEventListener | undefined): void {
  setStatus(service, 'stopped');
  service.handle = undefined;
  onEvent?.({ type: 'service', lab: lab.name, service: service.name, status: 'stopped' });
}

/** Groups services so that each group depends only on later groups: stop them group by group. */
function stopWaves(services: ServiceState[]): ServiceState[][] {
  const remaining = new Map(services.map((service) => [service.name, service]));
  const waves: ServiceState[][] = [];
  while (remaining.size > 0) {
    const neededByOthers = new Set([...remaining.values()].flatMap((service) => service.dependsOn));
    let wave = [...remaining.values()].filter((service) => !neededByOthers.has(service.name));
    if (wave.length === 0) wave = [...remaining.values()];
    wave.forEach((service) => remaining.delete(service.name));
    waves.push(wave);
  }
  return waves;
}
