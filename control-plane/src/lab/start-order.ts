import type { LabSession } from './session.js';
import { startService, type ServiceStartOptions } from './start-service.js';

/**
 * Starts `names`, each as soon as what it depends on is ready (not when a whole wave is): a wallet
 * server starts once its node and databases answer, whatever the other nodes are doing. What they
 * depend on outside `names` must be ready already. `afterStart` runs on each service once it is
 * ready, before what depends on it starts.
 */
export async function startInDependencyOrder(session: LabSession, names: string[], options: ServiceStartOptions, afterStart?: (name: string) => Promise<void>): Promise<void> {
  const services = session.lab.services;
  const starting = new Map<string, Promise<void>>();
  const start = (name: string): Promise<void> => {
    let started = starting.get(name);
    if (!started) {
      const waiting = services[name].dependsOn.filter((dependency) => services[dependency]?.status !== 'ready');
      const unknown = waiting.filter((dependency) => !names.includes(dependency));
      started = unknown.length > 0
        ? Promise.reject(new Error(`cannot start ${name}: ${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not ready`))
        : Promise.all(waiting.map(start)).then(() => startService(session, name, options)).then(() => afterStart?.(name));
      starting.set(name, started);
    }
    return started;
  };
  await Promise.all(names.map(start));
}
