// When a step fails, the reason says what happened to the lab meanwhile: a service that did not
// answer is looked up (status, restart policy, restarts, error), services the supervisor restarted
// or that are not ready since the run began are named, and so are the faults the run caused on
// purpose, with their step. A retried step that needs a service the lab reports down until someone
// starts it is not tried again.
import { describeError } from '../../../lib/errors.js';
import type { LabView, ServiceDirectory, ServiceView } from '../steps/services.js';

export interface Fault {
  action: string;
  target: string;
  stepId: string;
}

/** `before` is the lab when the run began; without it (the lab could not be asked then) it is not asked again. */
export async function diagnose(
  error: unknown,
  faults: Fault[],
  services: ServiceDirectory,
  before: LabView | undefined,
): Promise<string> {
  const message = describeError(error);
  const unreachable = (error as { unreachable?: string }).unreachable;
  const notes: string[] = [];
  if (before) {
    try {
      const now = await services.fresh();
      if (unreachable) notes.push(describeService(await services.service(unreachable, now)));
      notes.push(...changesSince(before, now, new Set([unreachable, ...faults.map((fault) => fault.target)])));
    } catch (lookup) {
      notes.push(`the lab could not be asked what happened: ${describeError(lookup)}`);
    }
  }
  const relevant = unreachable ? faults.filter((fault) => fault.target === unreachable) : faults;
  if (relevant.length > 0)
    notes.push(
      `this run ${relevant.map((fault) => `did ${fault.action} ${fault.target} at step ${fault.stepId}`).join(', ')}`,
    );
  return notes.length > 0 ? `${message} [${notes.join('; ')}]` : message;
}

/** What a service stays until someone starts it: the supervisor has given up on it, or leaves it down. */
const DOWN_UNTIL_STARTED = new Set(['failed', 'stopped']);

/**
 * The service that did not answer, when the lab reports it failed or stopped: trying again a step
 * that needs it only waits out the retry.
 */
export async function downUntilStarted(error: unknown, services: ServiceDirectory): Promise<ServiceView | undefined> {
  const unreachable = (error as { unreachable?: string }).unreachable;
  if (!unreachable) return undefined;
  const service = await services
    .fresh()
    .then((lab) => services.service(unreachable, lab))
    .catch(() => undefined);
  return service && DOWN_UNTIL_STARTED.has(service.status) ? service : undefined;
}

function describeService(service: ServiceView): string {
  const policy = service.restartPolicy ? `, restart policy ${service.restartPolicy}` : '';
  const restarts = service.restarts !== undefined ? `, ${service.restarts} restart(s)` : '';
  return `the lab reports ${service.name} ${service.status}${policy}${restarts}${reason(service)}`;
}

/** Services not named already that the supervisor restarted, or that are not ready, since the run began. */
function changesSince(before: LabView, now: LabView, named: Set<string | undefined>): string[] {
  return now.services
    .filter((service) => !named.has(service.name))
    .flatMap((service) => {
      const restartsBefore = before.services.find((earlier) => earlier.name === service.name)?.restarts ?? 0;
      const restarted = (service.restarts ?? 0) - restartsBefore;
      if (restarted > 0)
        return [`meanwhile the supervisor restarted ${service.name} ${restarted} time(s) (now ${service.status})`];
      return service.status === 'ready' ? [] : [`${service.name} is ${service.status}${reason(service)}`];
    });
}

/** The first line of a service's error: the log tail under it is for `reglab logs`. */
function reason(service: ServiceView): string {
  return service.error ? `: ${service.error.split('\n')[0]}` : '';
}
