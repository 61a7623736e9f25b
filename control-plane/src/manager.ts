import { EventEmitter } from 'node:events';
import { conflict, notFound } from '../../lib/errors.js';
import { bringUp, newLabState } from './lab/bring-up.js';
import type { LabEvent } from './lab/events.js';
import { LabSession } from './lab/session.js';
import { setStatus, type LabState, type ServiceState } from './lab/state.js';
import { tearDown } from './lab/tear-down.js';
import { runtimeOptionsFor } from './runtimes/select.js';
import { parseLabSpec } from './spec/parse.js';
import type { StateStore } from './store.js';
import { Faults } from './supervisor/faults.js';
import { Supervisor } from './supervisor/supervisor.js';

/** A lab that is up: its connections, its supervisor and its fault commands. */
interface RunningLab {
  session: LabSession;
  supervisor: Supervisor;
  faults: Faults;
}

/** Owns the labs of one control plane: creates, re-attaches, supervises, tears down, hands out sessions. */
export class LabManager {
  readonly events = new EventEmitter<{ event: [LabEvent] }>();
  private readonly running = new Map<string, RunningLab>();
  private readonly bringUps = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: StateStore,
    private readonly controlPlaneUrl: (runtime: LabState['runtime']) => string | undefined,
    private readonly onLabReady: (lab: LabState) => Promise<void> = async () => undefined,
  ) {
    this.events.setMaxListeners(100);
  }

  private readonly emit = (event: LabEvent) => this.events.emit('event', event);
  private readonly persist = () => this.store.save();

  list(): LabState[] {
    return Object.values(this.store.labs);
  }

  get(name: string): LabState {
    const lab = this.store.labs[name];
    if (!lab) throw notFound(`no lab named "${name}" (labs: ${Object.keys(this.store.labs).join(', ') || 'none'})`, 'NO_SUCH_LAB');
    return lab;
  }

  /** The lab's live connections; a lab still starting (or failed) has none. */
  session(name: string): LabSession {
    return this.runningLab(name).session;
  }

  faults(name: string): Faults {
    return this.runningLab(name).faults;
  }

  supervisor(name: string): Supervisor {
    return this.runningLab(name).supervisor;
  }

  private runningLab(name: string): RunningLab {
    const lab = this.get(name);
    const running = this.running.get(name);
    if (!running || (lab.status !== 'ready' && lab.status !== 'degraded')) throw conflict('LAB_NOT_READY', `lab "${name}" is ${lab.status}, not ready`);
    return running;
  }

  /**
   * Validates lab.yaml and starts bringing the lab up in the background; progress goes out as events.
   * A lab that is already up is refused; one whose processes are all gone is cleaned up first.
   */
  async create(specText: string, file = 'lab.yaml'): Promise<LabState> {
    const spec = parseLabSpec(specText, file);
    const existing = this.store.labs[spec.name];
    if (existing) {
      if (await this.anyServiceAlive(existing)) {
        throw conflict('LAB_ALREADY_UP', `lab "${spec.name}" is already up (${existing.status}, since ${existing.createdAt}): run \`reglab down\` first`);
      }
      await this.remove(spec.name, { volumes: true });
    }
    const lab = newLabState(spec, specText, this.store.labDir(spec.name));
    this.store.labs[spec.name] = lab;
    await this.store.save();
    const runtimeOptions = await runtimeOptionsFor(spec.runtime);
    const work = bringUp(lab, { runtimeOptions, controlPlaneUrl: this.controlPlaneUrl(spec.runtime), onEvent: this.emit, persist: this.persist })
      .then((session) => this.supervise(session))
      .catch(() => undefined)
      .finally(() => this.bringUps.delete(lab.name));
    this.bringUps.set(lab.name, work);
    return lab;
  }

  private async supervise(session: LabSession): Promise<void> {
    const supervisor = new Supervisor(session, { onEvent: this.emit, persist: this.persist });
    this.running.set(session.lab.name, { session, supervisor, faults: new Faults(supervisor, this.persist, this.emit) });
    supervisor.start();
    await this.onLabReady(session.lab);
  }

  /** Stops every service of the lab and removes its folder and state. */
  async remove(name: string, options: { volumes: boolean }): Promise<void> {
    const lab = this.get(name);
    await this.bringUps.get(name);
    this.release(name);
    const { runtime } = await runtimeOptionsFor(lab.runtime);
    await tearDown(lab, runtime, { volumes: options.volumes, onEvent: this.emit });
    delete this.store.labs[name];
    await this.store.save();
  }

  private release(name: string): void {
    const running = this.running.get(name);
    running?.supervisor.stop();
    running?.session.close();
    this.running.delete(name);
  }

  /**
   * After a control-plane restart: every lab that was up is supervised again. Its services that
   * died meanwhile are shown failed (the lab degraded) and restarted by their policies.
   */
  async reattachAll(): Promise<void> {
    for (const lab of this.list()) {
      if (lab.status === 'starting') {
        lab.status = 'failed';
        lab.error = 'the control plane stopped while the lab was starting';
      }
      if (lab.status !== 'ready' && lab.status !== 'degraded') continue;
      const runtimeOptions = await runtimeOptionsFor(lab.runtime);
      const dead: ServiceState[] = [];
      for (const service of Object.values(lab.services)) {
        if (service.status !== 'ready' || !service.handle || (await runtimeOptions.runtime.isAlive(service.handle))) continue;
        setStatus(service, 'failed', 'no longer running (found when the control plane restarted)');
        dead.push(service);
      }
      if (dead.length > 0) lab.status = 'degraded';
      const session = new LabSession(lab, runtimeOptions, this.controlPlaneUrl(lab.runtime));
      await session.reattach();
      await this.supervise(session);
      for (const service of dead) void this.running.get(lab.name)!.supervisor.recover(service);
    }
    await this.store.save();
  }

  async waitForBringUps(): Promise<void> {
    await Promise.all(this.bringUps.values());
  }

  closeSessions(): void {
    for (const name of [...this.running.keys()]) this.release(name);
  }

  private async anyServiceAlive(lab: LabState): Promise<boolean> {
    const { runtime } = await runtimeOptionsFor(lab.runtime);
    for (const service of Object.values(lab.services)) {
      if (service.handle && (await runtime.isAlive(service.handle))) return true;
    }
    return this.bringUps.has(lab.name);
  }
}
