import { EventEmitter } from 'node:events';
import { bringUp, newLabState } from './lab/bring-up.js';
import type { LabEvent } from './lab/events.js';
import { LabSession } from './lab/session.js';
import type { LabState } from './lab/state.js';
import { tearDown } from './lab/tear-down.js';
import { runtimeOptionsFor } from './runtimes/select.js';
import { parseLabSpec } from './spec/parse.js';
import type { StateStore } from './store.js';

export class LabConflictError extends Error {}
export class LabNotFoundError extends Error {}

/** Owns the labs of one control plane: creates, re-attaches, tears down, and hands out sessions. */
export class LabManager {
  readonly events = new EventEmitter<{ event: [LabEvent] }>();
  private readonly sessions = new Map<string, LabSession>();
  private readonly bringUps = new Map<string, Promise<unknown>>();

  constructor(
    private readonly store: StateStore,
    private readonly controlPlaneUrl: (runtime: LabState['runtime']) => string | undefined,
    private readonly onLabReady: (lab: LabState) => Promise<void> = async () => undefined,
  ) {
    this.events.setMaxListeners(100);
  }

  list(): LabState[] {
    return Object.values(this.store.labs);
  }

  get(name: string): LabState {
    const lab = this.store.labs[name];
    if (!lab) throw new LabNotFoundError(`no lab named "${name}" (labs: ${Object.keys(this.store.labs).join(', ') || 'none'})`);
    return lab;
  }

  session(name: string): LabSession {
    const lab = this.get(name);
    const session = this.sessions.get(name);
    if (!session || lab.status !== 'ready') throw new LabConflictError(`lab "${name}" is ${lab.status}, not ready`);
    return session;
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
        throw new LabConflictError(`lab "${spec.name}" is already up (${existing.status}, since ${existing.createdAt}): run \`reglab down\` first`);
      }
      await this.remove(spec.name, { volumes: true });
    }
    const lab = newLabState(spec, specText, this.store.labDir(spec.name));
    this.store.labs[spec.name] = lab;
    await this.store.save();
    const runtimeOptions = await runtimeOptionsFor(spec.runtime);
    const emit = (event: LabEvent) => this.events.emit('event', event);
    const work = bringUp(lab, { ...runtimeOptions, controlPlaneUrl: this.controlPlaneUrl(spec.runtime), onEvent: emit, persist: () => this.store.save() })
      .then(async (session) => {
        this.sessions.set(lab.name, session);
        await this.onLabReady(lab);
      })
      .catch(() => undefined)
      .finally(() => this.bringUps.delete(lab.name));
    this.bringUps.set(lab.name, work);
    return lab;
  }

  /** Stops every service of the lab and removes its folder and state. */
  async remove(name: string, options: { volumes: boolean }): Promise<void> {
    const lab = this.get(name);
    await this.bringUps.get(name);
    this.sessions.get(name)?.close();
    this.sessions.delete(name);
    const { runtime } = await runtimeOptionsFor(lab.runtime);
    await tearDown(lab, runtime, { volumes: options.volumes, onEvent: (event) => this.events.emit('event', event) });
    delete this.store.labs[name];
    await this.store.save();
  }

  /**
   * After a control-plane restart: labs whose services all still run are re-attached; a lab with a
   * dead service is marked degraded (its `status` says which).
   */
  async reattachAll(): Promise<void> {
    for (const lab of this.list()) {
      const { runtime } = await runtimeOptionsFor(lab.runtime);
      let allAlive = true;
      for (const service of Object.values(lab.services)) {
        if (service.status !== 'ready') continue;
        if (!service.handle || !(await runtime.isAlive(service.handle))) {
          service.status = 'failed';
          service.error = 'no longer running (found when the control plane restarted)';
          allAlive = false;
        }
      }
      if (lab.status === 'starting') lab.status = 'failed';
      if (lab.status === 'ready' && !allAlive) lab.status = 'degraded';
      if (lab.status === 'ready') {
        const runtimeOptions = await runtimeOptionsFor(lab.runtime);
        const session = new LabSession(lab, runtimeOptions);
        await session.reattach();
        this.sessions.set(lab.name, session);
        await this.onLabReady(lab);
      }
    }
    await this.store.save();
  }

  async waitForBringUps(): Promise<void> {
    await Promise.all(this.bringUps.values());
  }

  closeSessions(): void {
    for (const session of this.sessions.values()) session.close();
    this.sessions.clear();
  }

  private async anyServiceAlive(lab: LabState): Promise<boolean> {
    const { runtime } = await runtimeOptionsFor(lab.runtime);
    for (const service of Object.values(lab.services)) {
      if (service.handle && (await runtime.isAlive(service.handle))) return true;
    }
    return this.bringUps.has(lab.name);
  }
}
