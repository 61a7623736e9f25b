import type { LabSession } from './session.js';
import { startService, type ServiceStartOptions } from './start-service.js';

export interface StartHooks {
  before?(name: string): Promise<void>;
  after?(name: string): Promise<void>;
}

/**
 * Starts `names`, each as soon as what it depends on is ready (not when a whole wave is): a wallet
 * server starts once its node and databases answer, whatever the other nodes are doing. What they
 * depend on outside `names` must be ready already. `hooks.before` runs on each service before it
 * starts (once what it depends on is ready), `hooks.after` once it is ready, before what depends
 * on it starts. Of services that may start at the same moment, those with the longest line of
 * services waiting on them are asked of the runtime first, and go first among the starts it holds
 * back (a container engine takes a few at a time): a service whose data comes back late is not left
 * behind those asked before it.
 */
export async function startInDependencyOrder(
  session: LabSession,
  names: string[],
  options: ServiceStartOptions,
  hooks: StartHooks = {},
): Promise<void> {
  const services = session.lab.services;
  const order = byWaitingLine(services, names);
  const starting = new Map<string, Promise<void>>();
  const start = (name: string): Promise<void> => {
    let started = starting.get(name);
    if (!started) {
      const waiting = services[name].dependsOn.filter((dependency) => services[dependency]?.status !== 'ready');
      const unknown = waiting.filter((dependency) => !names.includes(dependency));
      started =
        unknown.length > 0
          ? Promise.reject(
              new Error(`cannot start ${name}: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not ready`),
            )
          : Promise.all(waiting.map(start))
              .then(() => hooks.before?.(name))
              .then(() => startService(session, name, options, { precedence: order.indexOf(name) }))
              .then(() => hooks.after?.(name));
      starting.set(name, started);
    }
    return started;
  };
  await Promise.all(order.map(start));
}

type Services = LabSession['lab']['services'];

/** `names`, those with the longest line of services waiting on them first, then those with the most. */
export function byWaitingLine(services: Services, names: string[]): string[] {
  const dependents = (name: string) =>
    Object.values(services)
      .filter((service) => service.dependsOn.includes(name))
      .map((service) => service.name);
  const lines = new Map<string, { length: number; waiting: Set<string> }>();
  const lineOf = (name: string): { length: number; waiting: Set<string> } => {
    let line = lines.get(name);
    if (!line) {
      const below = dependents(name).map((dependent) => [dependent, lineOf(dependent)] as const);
      line = {
        length: Math.max(0, ...below.map(([, next]) => next.length + 1)),
        waiting: new Set(below.flatMap(([dependent, next]) => [dependent, ...next.waiting])),
      };
      lines.set(name, line);
    }
    return line;
  };
  return [...names].sort(
    (a, b) =>
      lineOf(b).length - lineOf(a).length || lineOf(b).waiting.size - lineOf(a).waiting.size || a.localeCompare(b),
  );
}
