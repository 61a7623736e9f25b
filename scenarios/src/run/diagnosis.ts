// When a step fails after this run broke something on purpose, the failure says so: a service
// that did not answer is looked up (status, restart policy, restarts, error) and the faults this
// run caused are named with their step.
import { describeError } from '../../../lib/errors.js';
import type { ServiceDirectory } from '../steps/services.js';

export interface Fault {
  action: string;
  target: string;
  stepId: string;
}

export async function diagnose(error: unknown, faults: Fault[], services: ServiceDirectory): Promise<string> {
  const message = describeError(error);
  const unreachable = (error as { unreachable?: string }).unreachable;
  const notes: string[] = [];
  if (unreachable) notes.push(await serviceState(unreachable, services));
  const relevant = unreachable ? faults.filter((fault) => fault.target === unreachable) : faults;
  if (relevant.length > 0) notes.push(`this run ${relevant.map((fault) => `did ${fault.action} ${fault.target} at step ${fault.stepId}`).join(', ')}`);
  return notes.length > 0 ? `${message} [${notes.join('; ')}]` : message;
}

async function serviceState(name: string, services: ServiceDirectory): Promise<string> {
  try {
    const service = await services.service(name, await services.fresh());
    const policy = service.restartPolicy ? `, restart policy ${service.restartPolicy}` : '';
    const restarts = service.restarts !== undefined ? `, ${service.restarts} restart(s)` : '';
    return `the lab reports ${name} ${service.status}${policy}${restarts}${service.error ? `: ${service.error}` : ''}`;
  } catch (error) {
    return `the lab could not be asked about ${name}: ${describeError(error)}`;
  }
}
