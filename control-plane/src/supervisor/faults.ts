// Fault commands for QA: stop, start, restart and kill a service on purpose; disconnect and
// connect Lightning peers. A service stopped on purpose shows `stopped` and is not restarted.
import { invalid, notFound } from '../../../lib/errors.js';
import type { LabEventListener } from '../lab/events.js';
import { disconnectPeers, reconnectPeers } from '../lab/operations.js';
import { startService } from '../lab/start-service.js';
import type { ServiceState } from '../lab/state.js';
import { kindDefinition } from '../nodes/registry.js';
import type { Supervisor } from './supervisor.js';
import { ownValue } from '../util/own.js';

export type ServiceAction = 'stop' | 'start' | 'restart' | 'kill';

export class Faults {
  constructor(
    private readonly supervisor: Supervisor,
    private readonly persist: () => Promise<void>,
    private readonly onEvent: LabEventListener,
  ) {}

  private service(name: string): ServiceState {
    const lab = this.supervisor.session.lab;
    const service = ownValue(lab.services, name);
    if (!service)
      throw notFound(
        `lab ${lab.name} has no service "${name}" (services: ${Object.keys(lab.services).join(', ')})`,
        'NO_SUCH_SERVICE',
      );
    return service;
  }

  async act(name: string, action: ServiceAction): Promise<ServiceState> {
    const service = this.service(name);
    switch (action) {
      case 'stop':
        await this.supervisor.hold(name, () => this.stop(service));
        break;
      case 'start':
        if (service.status === 'ready') return service;
        await this.supervisor.hold(name, () => this.start(service));
        break;
      case 'restart':
        await this.supervisor.hold(name, async () => {
          await this.stop(service);
          await this.start(service);
        });
        break;
      case 'kill':
        // no clean shutdown, and nothing held: the supervisor sees a crash and acts by the policy
        if (!service.handle) throw invalid('NOT_RUNNING', `${name} is ${service.status}: there is nothing to kill`);
        await this.supervisor.session.runtime.kill(service.handle);
        await this.supervisor.noticeKill(service);
        break;
    }
    return service;
  }

  private async stop(service: ServiceState): Promise<void> {
    if (service.handle)
      await this.supervisor.session.runtime.stop(service.handle, kindDefinition(service.kind).stopSignal);
    service.handle = undefined;
    await this.supervisor.report(
      service,
      'stopped',
      `stopped on purpose (\`reglab start ${service.name}\` starts it again)`,
    );
  }

  /** A process of it still running (a service waiting for its dependency) is stopped first: the new one takes its ports. */
  private async start(service: ServiceState): Promise<void> {
    const { runtime } = this.supervisor.session;
    if (service.handle && (await runtime.isAlive(service.handle).catch(() => false)))
      await runtime.stop(service.handle, kindDefinition(service.kind).stopSignal);
    await startService(this.supervisor.session, service.name, { onEvent: this.onEvent, persist: this.persist });
  }

  async peers(action: 'connect' | 'disconnect', a: string, b: string): Promise<void> {
    if (a === b) throw invalid('SAME_NODE', 'peers are two different nodes');
    const session = this.supervisor.session;
    await (action === 'connect' ? reconnectPeers(session, a, b) : disconnectPeers(session, a, b));
  }
}
