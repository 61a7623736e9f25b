import { EventEmitter } from 'node:events';
import { rmSync } from 'node:fs';
import { conflict, describeError, notFound } from '../../lib/errors.js';
import { planOf } from './activity/plan.js';
import { ActivityRunner } from './activity/runner.js';
import { bringUp, newLabState, type LabDriverOptions } from './lab/bring-up.js';
import type { LabEvent } from './lab/events.js';
import { LabFeeRates } from './lab/fee-market.js';
import { LabSession } from './lab/session.js';
import { LabNetwork } from './network/lab-network.js';
import { RUNNING_STATUSES, setStatus, type LabState, type LabStatus, type ServiceState } from './lab/state.js';
import { forgetLab, tearDown } from './lab/tear-down.js';
import { runtimeOptionsFor } from './runtimes/select.js';
import { isEngineUnavailable, type RuntimeOptions } from './runtimes/types.js';
import { parseLabSpec } from './spec/parse.js';
import type { LabSpec } from './spec/types.js';
import type { StateStore } from './store.js';
import { Faults } from './supervisor/faults.js';
import { Supervisor } from './supervisor/supervisor.js';
import { ownValue } from './util/own.js';

/** A lab that is up: its connections, its supervisor, its fault commands and its network's. */
interface RunningLab {
  session: LabSession;
  supervisor: Supervisor;
  faults: Faults;
  activity: ActivityRunner;
  network: LabNetwork;
}

/** Owns the labs of one control plane: creates, re-attaches, supervises, tears down, hands out sessions. */
export class LabManager {
  readonly events = new EventEmitter<{ event: [LabEvent] }>();
  private readonly running = new Map<string, RunningLab>();
  private readonly bringUps = new Map<string, Promise<unknown>>();
  private readonly fees = new LabFeeRates();

  constructor(
    private readonly store: StateStore,
    private readonly controlPlaneUrl: (runtime: LabState['runtime']) => string | undefined,
    private readonly onLabReady: (lab: LabState) => Promise<void> = async () => undefined,
    /** The control plane is open to the network: so are its labs' user-facing services. */
    private readonly exposeServices = false,
  ) {
    this.events.setMaxListeners(100);
  }

  private readonly emit = (event: LabEvent) => this.events.emit('event', event);
  private readonly persist = () => this.store.save();

  list(): LabState[] {
    return Object.values(this.store.labs);
  }

  get(name: string): LabState {
    const lab = ownValue(this.store.labs, name);
    if (!lab)
      throw notFound(
        `no lab named "${name}" (labs: ${Object.keys(this.store.labs).join(', ') || 'none'})`,
        'NO_SUCH_LAB',
      );
    return lab;
  }

  /** The lab's fee rates by its policy, also while it comes up (its lnd nodes read them from their start). */
  feeRates(name: string): Promise<Map<number, number>> {
    return this.fees.rates(this.get(name));
  }

  /** The lab's live connections; a lab still starting (or failed) has none. */
  session(name: string): LabSession {
    return this.runningLab(name).session;
  }

  /** The lab's live connections while it is up (ready or degraded); undefined otherwise. */
  sessionIfUp(name: string): LabSession | undefined {
    const lab = this.store.labs[name];
    return lab?.status === 'ready' || lab?.status === 'degraded' ? this.running.get(name)?.session : undefined;
  }

  faults(name: string): Faults {
    return this.runningLab(name).faults;
  }

  network(name: string): LabNetwork {
    return this.runningLab(name).network;
  }

  supervisor(name: string): Supervisor {
    return this.runningLab(name).supervisor;
  }

  /** The lab's payment activity (reglab activity). */
  activity(name: string): ActivityRunner {
    return this.runningLab(name).activity;
  }

  private runningLab(name: string): RunningLab {
    const lab = this.get(name);
    const running = this.running.get(name);
    if (!running || (lab.status !== 'ready' && lab.status !== 'degraded'))
      throw conflict('LAB_NOT_READY', `lab "${name}" is ${lab.status}, not ready`);
    return running;
  }

  /**
   * Validates lab.yaml and starts bringing the lab up in the background; progress goes out as events.
   * A lab that is already up is refused; one whose processes are all gone is cleaned up first.
   */
  async create(specText: string, file = 'lab.yaml'): Promise<LabState> {
    const spec = parseLabSpec(specText, file);
    return this.launch(spec.name, (dir) => this.newLab(spec, specText, dir), bringUp);
  }

  /** The state of a lab about to be brought up in `dir`, its user-facing services exposed when the control plane is. */
  newLab(spec: LabSpec, specText: string, dir: string): LabState {
    return newLabState(spec, specText, dir, { exposed: this.exposeServices });
  }

  /**
   * Starts bringing up the lab `makeLab` makes (in its folder) with `start` in the background: a
   * new lab, or one restored from a snapshot. Refused when a lab of that name is up.
   */
  async launch(
    name: string,
    makeLab: (dir: string) => LabState,
    start: (lab: LabState, options: LabDriverOptions) => Promise<LabSession>,
  ): Promise<LabState> {
    const existing = ownValue(this.store.labs, name);
    if (existing) {
      if (await this.anyServiceAlive(existing)) {
        throw conflict(
          'LAB_ALREADY_UP',
          `lab "${name}" is already up (${existing.status}, since ${existing.createdAt}): run \`reglab down\` first`,
        );
      }
      await this.remove(name, { volumes: true });
    } else {
      // a folder without a record (the state file lost or replaced) holds an earlier lab's nodes and chain: a new lab
      // starts without them
      rmSync(this.store.labDir(name), { recursive: true, force: true });
    }
    const lab = makeLab(this.store.labDir(name));
    this.store.labs[name] = lab;
    await this.store.save();
    const runtimeOptions = await runtimeOptionsFor(lab.spec);
    this.track(name, start(lab, this.driverOptions(runtimeOptions, lab)));
    return lab;
  }

  /**
   * Counts `work` (a bring-up, or a pause) as the lab's until it ends, or until the lab it brings
   * back is taken over (takeOver), whichever comes first.
   */
  private track(name: string, work: Promise<unknown>): void {
    const tracked: Promise<unknown> = work
      .catch(() => undefined)
      .finally(() => {
        if (this.bringUps.get(name) === tracked) this.bringUps.delete(name);
      });
    this.bringUps.set(name, tracked);
  }

  /**
   * Takes a lab out of supervision and runs `work`, which stops its services and brings them back
   * up (a snapshot saved or restored); the lab is supervised again once it is. Refused unless the
   * lab is in one of `statuses` and nothing else is bringing it up.
   */
  async whilePaused<T>(
    name: string,
    statuses: LabStatus[],
    work: (lab: LabState, options: LabDriverOptions) => Promise<{ session: LabSession; result: T }>,
  ): Promise<T> {
    const lab = this.get(name);
    if (this.bringUps.has(name) || !statuses.includes(lab.status))
      throw conflict(
        'LAB_NOT_READY',
        `lab "${name}" is ${this.bringUps.has(name) ? 'busy (starting, or a snapshot is being taken)' : lab.status}: wait until it is ${statuses.join(' or ')}`,
      );
    await this.checkEngine(lab);
    lab.status = 'stopping';
    const done = (async () => {
      await this.release(name);
      return work(lab, this.driverOptions(await runtimeOptionsFor(lab.spec), lab));
    })().catch(async (error: unknown) => {
      if (lab.status === 'stopping') {
        lab.status = 'failed';
        lab.error = describeError(error);
        await this.persist();
      }
      throw error;
    });
    this.track(name, done);
    return (await done).result;
  }

  private driverOptions(runtimeOptions: RuntimeOptions, lab: LabState): LabDriverOptions {
    return {
      runtimeOptions,
      controlPlaneUrl: this.controlPlaneUrl(lab.runtime),
      onEvent: this.emit,
      persist: this.persist,
      beforeReady: (session) => this.takeOver(session),
    };
  }

  /** A lab brought (back) up, just before it is reported ready: supervised, and no longer busy. */
  private async takeOver(session: LabSession): Promise<void> {
    await this.supervise(session).catch(() => undefined); // a lab whose auto-mining could not be scheduled is still up
    this.bringUps.delete(session.lab.name);
  }

  /** The state folder: labs, logs, snapshots. */
  get home(): string {
    return this.store.home;
  }

  /** Saves the state file after a change made to a running lab (an asset issued). */
  save(): Promise<void> {
    return this.persist();
  }

  private async supervise(session: LabSession): Promise<void> {
    const supervisor = new Supervisor(session, { onEvent: this.emit, persist: this.persist });
    const activity = new ActivityRunner(session, this.emit);
    const network = new LabNetwork(session, this.persist, this.emit);
    this.running.set(session.lab.name, {
      session,
      supervisor,
      faults: new Faults(supervisor, this.persist, this.emit),
      activity,
      network,
    });
    supervisor.start();
    network.drawResets();
    await this.onLabReady(session.lab);
    const declared = session.lab.spec.activity;
    if (declared?.start)
      await activity.start(planOf({}, declared)).catch((error: unknown) =>
        this.emit({
          type: 'lab',
          lab: session.lab.name,
          status: session.lab.status,
          message: `lab.yaml's activity did not start: ${describeError(error)}`,
        }),
      );
  }

  /**
   * Stops every service of the lab and removes its folder and state. A docker lab whose container
   * engine does not answer is refused, unless `force`: then it is forgotten (its folder and state
   * removed, nothing asked of the engine), and what it left in the engine is returned, described.
   * Otherwise the containers not of the lab that were disconnected from its network are returned.
   */
  async remove(
    name: string,
    options: { volumes: boolean; force?: boolean },
  ): Promise<{ leftInEngine?: string; detached?: string[] }> {
    const lab = this.get(name);
    await this.bringUps.get(name);
    const engineGone = await this.checkEngine(lab, { orTellGone: options.force });
    await this.release(name);
    const { runtime } = await runtimeOptionsFor(lab.spec);
    if (engineGone) forgetLab(lab, this.emit);
    const detached = engineGone
      ? []
      : await tearDown(lab, runtime, { volumes: options.volumes, onEvent: this.emit }).catch((error: unknown) =>
          this.failStop(lab, error),
        );
    delete this.store.labs[name];
    await this.store.save();
    if (engineGone) return { leftInEngine: runtime.leftInEngine?.({ name: lab.name, dir: lab.dir }) };
    return detached.length > 0 ? { detached } : {};
  }

  /** A tear-down that stopped part-way: the lab is shown failed, saying so, until a `down` succeeds. */
  private async failStop(lab: LabState, error: unknown): Promise<never> {
    lab.status = 'failed';
    lab.error = `reglab down stopped part-way (run it again once this is fixed): ${describeError(error)}`;
    this.emit({ type: 'lab', lab: lab.name, status: 'failed', message: lab.error });
    await this.store.save();
    throw error;
  }

  /**
   * A docker lab whose container engine does not answer is refused (503) before anything of it
   * stops; with `orTellGone`, the answer is true instead.
   */
  private async checkEngine(lab: LabState, options: { orTellGone?: boolean } = {}): Promise<boolean> {
    const { runtime } = await runtimeOptionsFor(lab.spec);
    try {
      await runtime.checkEngine?.();
      return false;
    } catch (error) {
      if (options.orTellGone && isEngineUnavailable(error)) return true;
      throw error;
    }
  }

  private async release(name: string): Promise<void> {
    const running = this.running.get(name);
    this.running.delete(name);
    running?.activity.stop('the lab went down');
    running?.network.stop();
    this.fees.forget(name);
    await running?.supervisor.stop();
    running?.session.close();
  }

  /**
   * After a control-plane restart: every lab that was up is supervised again. Its services that
   * died meanwhile are shown failed (the lab degraded) and restarted by their policies.
   */
  async reattachAll(): Promise<void> {
    for (const lab of this.list()) {
      if (lab.status === 'starting' || lab.status === 'stopping') {
        lab.error = `the control plane stopped while the lab was ${lab.status} (a bring-up, or a snapshot being saved or restored)`;
        lab.status = 'failed';
      }
      if (lab.status !== 'ready' && lab.status !== 'degraded') continue;
      const runtimeOptions = await runtimeOptionsFor(lab.spec);
      const toRestart: { service: ServiceState; reason: string }[] = [];
      for (const service of Object.values(lab.services)) {
        if (service.status === 'restarting') {
          toRestart.push({ service, reason: `${service.name} was being restarted when the last control plane ended` });
          continue;
        }
        if (
          !RUNNING_STATUSES.has(service.status) ||
          !service.handle ||
          (await this.seemsAlive(runtimeOptions, service))
        )
          continue;
        setStatus(service, 'failed', 'no longer running (found when the control plane restarted)');
        toRestart.push({ service, reason: `${service.name} was no longer running when the control plane restarted` });
      }
      if (toRestart.length > 0) lab.status = 'degraded';
      await runtimeOptions.runtime.reattachLab?.(lab);
      const session = new LabSession(lab, runtimeOptions, this.controlPlaneUrl(lab.runtime));
      await session.reattach();
      await this.supervise(session);
      for (const { service, reason } of toRestart) void this.running.get(lab.name)!.supervisor.recover(service, reason);
    }
    await this.store.save();
  }

  /**
   * Whether a service still runs; an engine that does not answer cannot tell (Podman stopped): the
   * control plane starts all the same, says that the engine does not answer, and its supervisor
   * finds out once it does.
   */
  private seemsAlive(runtimeOptions: RuntimeOptions, service: ServiceState): Promise<boolean> {
    return runtimeOptions.runtime.isAlive(service.handle!).catch((error: unknown) => {
      if (isEngineUnavailable(error)) return true;
      throw error;
    });
  }

  async waitForBringUps(): Promise<void> {
    await Promise.all(this.bringUps.values());
  }

  async closeSessions(): Promise<void> {
    await Promise.all([...this.running.keys()].map((name) => this.release(name)));
    this.fees.close();
  }

  private async anyServiceAlive(lab: LabState): Promise<boolean> {
    const { runtime } = await runtimeOptionsFor(lab.spec);
    for (const service of Object.values(lab.services)) {
      if (service.handle && (await runtime.isAlive(service.handle))) return true;
    }
    return this.bringUps.has(lab.name);
  }
}
