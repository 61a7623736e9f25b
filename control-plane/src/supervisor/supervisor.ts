// Keeps a lab's services running: sees a dead service within a second (process gone, container
// died), an unhealthy one after its readiness probe failed several times in a row, reports each
// at once (status, reason, log tail, an event) and restarts it by its policy with backoff, until
// a limit after which it stays failed. A service whose dependency is down (lnd without its chain
// node) is `waiting` for it: neither probed into `ready` nor restarted against the limit, and started
// again once the dependency is back if it ended meanwhile. Services stopped on purpose are left alone. It also keeps the
// chain journal up to date with blocks the control plane did not mine itself, so that a restarted
// chain node comes back with them, and mines a block when the chain's tip gets too old for lnd.
import { describeError } from '../../../lib/errors.js';
import { sleep, waitFor, withTimeout } from '../../../lib/wait.js';
import { freshenChainTip } from '../lab/chain-tip.js';
import type { LabEvent, LabEventListener } from '../lab/events.js';
import type { LabSession } from '../lab/session.js';
import { logTail, serviceEvent, startService } from '../lab/start-service.js';
import {
  dependenciesDown,
  labStatusFromServices,
  RUNNING_STATUSES,
  servicesDown,
  setStatus,
  waitingFor,
  type ServiceState,
} from '../lab/state.js';
import { isPartitioned } from '../network/model.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { dialChannelPartners } from '../nodes/reconnect.js';
import { kindDefinition } from '../nodes/registry.js';
import { isEngineUnavailable, type EngineReach, type ExitStatus } from '../runtimes/types.js';
import { DEFAULT_MAX_TIP_AGE_SECONDS } from '../lab/chain-tip.js';
import {
  backoffMs,
  DEPENDENCY_RETRY_MS,
  describeExit,
  ENGINE_RETRY_MS,
  recentRestarts,
  wantsRestart,
} from './policy.js';

export interface SupervisorOptions {
  onEvent: LabEventListener;
  persist(): Promise<void>;
  /** How often liveness is checked (process: a signal 0; docker: an inspect). */
  livenessIntervalMs?: number;
}

/** A quarter of the tip's allowed age, at most a minute: the tip never gets much older than allowed. */
const tipCheckIntervalMs = (maxTipAgeSeconds: number | undefined) =>
  Math.max(1_000, Math.min(60_000, ((maxTipAgeSeconds || DEFAULT_MAX_TIP_AGE_SECONDS) * 1_000) / 4));
/** A probe slower than this counts as failed (generous: a loaded machine is not a sick service). */
const PROBE_TIMEOUT_MS = 10_000;

export class Supervisor {
  private timers: NodeJS.Timeout[] = [];
  /** Services a restart or a fault command is acting on: the checks leave them alone. */
  private readonly busy = new Set<string>();
  private readonly failedProbes = new Map<string, number>();
  /** Services being probed right now (a probe is not run twice at once). */
  private readonly probing = new Set<string>();
  /** Restarts under way, by service, which stop() waits for (a lab going down must not get a service back). */
  private readonly restarting = new Map<string, Promise<void>>();
  /** Restarts waiting for a dependency that a fault command on their service calls off. */
  private readonly calledOff = new Set<string>();
  private checking = false;
  /** A death was announced while a liveness pass ran: run another one right after it. */
  private recheck = false;
  private unwatchExits?: () => void;
  private unwatchBlocks?: () => void;
  private probingAll = false;
  /** Chores on the chain node under way (onChain). */
  private readonly chainChores = new Set<string>();
  /** Chores asked for again while they ran. */
  private readonly chainChoresAgain = new Set<string>();
  private stopped = false;
  /** What the lab last heard of its container engine (docker), to tell when that changes. */
  private engineSeen?: EngineReach;

  constructor(
    readonly session: LabSession,
    private readonly options: SupervisorOptions,
  ) {}

  private get lab() {
    return this.session.lab;
  }

  start(): void {
    const liveness = this.options.livenessIntervalMs ?? (this.lab.runtime === 'process' ? 1_000 : 2_000);
    const probes = this.lab.spec.supervision.probe_interval_seconds * 1_000;
    const chain = this.lab.services[CHAIN_SERVICE];
    this.unwatchBlocks = chain && kindDefinition(chain.kind).watchBlocks?.(this.session, () => void this.recordChain());
    this.timers = [
      setInterval(() => void this.checkLiveness().then(() => this.recheckWaiting()), liveness),
      setInterval(() => void this.checkProbes(), probes),
      // told of each block, the journal is also brought up to date at each probe, in case a notification was lost
      setInterval(() => void this.recordChain(), this.unwatchBlocks ? probes : liveness),
      setInterval(() => void this.freshenChainTip(), tipCheckIntervalMs(this.lab.spec.mining.max_tip_age_seconds)),
    ];
    for (const timer of this.timers) timer.unref();
    this.engineSeen = this.session.runtime.engineReach?.();
    // a lab the control plane comes back to after hours: before lnd's probes find it unsynced
    void this.freshenChainTip();
    this.unwatchExits = this.session.runtime.watchExits?.(this.lab, () => void this.checkLiveness({ announced: true }));
  }

  /** Stops watching, and waits for a restart under way to end (the restarted service then runs). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.unwatchExits?.();
    this.unwatchBlocks?.();
    await Promise.all(this.restarting.values());
  }

  /**
   * Runs `work` on a service with the supervisor's checks held off it (fault commands use this). A
   * restart of it that waits for a dependency is called off first: the command decides instead.
   */
  async hold<T>(service: string, work: () => Promise<T>): Promise<T> {
    await this.callOffWaitingRestart(service);
    if (this.busy.has(service))
      throw new Error(`${service} is being restarted or changed right now; try again when it is done`);
    this.busy.add(service);
    try {
      return await work();
    } finally {
      this.busy.delete(service);
      this.failedProbes.delete(service);
      await this.updateLabStatus();
      await this.noticeDependents(this.lab.services[service]);
    }
  }

  private async callOffWaitingRestart(service: string): Promise<void> {
    const restart = this.restarting.get(service);
    if (!restart || this.lab.services[service]?.status !== 'waiting') return;
    this.calledOff.add(service);
    try {
      await restart;
    } finally {
      this.calledOff.delete(service);
    }
  }

  private watched(): ServiceState[] {
    return Object.values(this.lab.services).filter(
      (service) => RUNNING_STATUSES.has(service.status) && service.handle && !this.busy.has(service.name),
    );
  }

  /**
   * One pass over the watched services; `announced`: the runtime told of a death, which must not wait for the next
   * poll.
   */
  private async checkLiveness(options: { announced?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    if (this.checking) {
      if (options.announced) this.recheck = true;
      return;
    }
    this.checking = true;
    try {
      do {
        this.recheck = false;
        for (const service of this.watched()) {
          const alive = await this.session.runtime.isAlive(service.handle!).catch(() => true);
          if (!alive)
            void this.fail(service, await this.session.runtime.exitStatus(service.handle!).catch(() => undefined));
        }
      } while (this.recheck && !this.stopped);
      this.noticeEngine();
    } finally {
      this.checking = false;
    }
  }

  /** Tells when the container engine stops answering, or answers again: its liveness checks just asked it. */
  private noticeEngine(): void {
    const reach = this.session.runtime.engineReach?.();
    if (!reach || reach.answering === (this.engineSeen?.answering ?? true)) return;
    this.engineSeen = reach;
    this.options.onEvent({ type: 'engine', lab: this.lab.name, ...reach });
  }

  /**
   * A service killed on purpose (`reglab kill`) is handled as the crash it is at once, so the
   * status the kill answers with already shows it, rather than at the next liveness poll (a
   * container is given a few seconds to be seen dead by its engine; else its die event does it).
   */
  async noticeKill(service: ServiceState): Promise<void> {
    const handle = service.handle;
    if (this.stopped || this.busy.has(service.name) || !RUNNING_STATUSES.has(service.status) || !handle) return;
    const dead = await waitFor(async () => !(await this.session.runtime.isAlive(handle)), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: `${service.name} to be seen dead`,
    }).catch(() => false);
    if (dead && service.handle === handle)
      void this.fail(service, await this.session.runtime.exitStatus(handle).catch(() => undefined));
  }

  /**
   * Journals the blocks the control plane did not mine itself (the faucet's own on docker, a
   * user's `generate` over RPC) as the chain node tells of them; its own are journaled as it mines them.
   */
  private recordChain(): Promise<void> {
    return this.onChain('journal', () => this.session.recordChain());
  }

  /** A block when the tip is older than lab.yaml allows (lab/chain-tip.ts), announced like any other. */
  private freshenChainTip(): Promise<void> {
    return this.onChain('tip', async () => {
      const mined = await freshenChainTip(this.session);
      if (mined) this.options.onEvent({ type: 'blocks', lab: this.lab.name, height: mined.height, mined: 1 });
    });
  }

  /**
   * Runs a chore on the chain node, one of each kind at a time: asked again while it runs, it runs
   * once more after (a block told of meanwhile is journaled then). Not while the node is being
   * restarted: it is given the journal's blocks, and a fresh tip, then.
   */
  private async onChain(chore: string, work: () => Promise<void>): Promise<void> {
    if (this.chainChores.has(chore)) {
      this.chainChoresAgain.add(chore);
      return;
    }
    this.chainChores.add(chore);
    try {
      do {
        this.chainChoresAgain.delete(chore);
        const chain = this.lab.services[CHAIN_SERVICE];
        if (this.stopped || chain?.status !== 'ready' || this.busy.has(CHAIN_SERVICE)) return;
        await work().catch(() => undefined); // the chain node is down or busy: its liveness check and probe report that
      } while (this.chainChoresAgain.has(chore));
    } finally {
      this.chainChores.delete(chore);
    }
  }

  private async checkProbes(): Promise<void> {
    if (this.probingAll || this.stopped) return;
    this.probingAll = true;
    try {
      await Promise.all(this.watched().map((service) => this.probe(service)));
    } finally {
      this.probingAll = false;
    }
  }

  /**
   * Probes each waiting service whose dependencies are back, every second: one that passes is
   * ready again at once; one that does not is left to its regular probes, which count failures.
   */
  private async recheckWaiting(): Promise<void> {
    if (this.stopped) return;
    await Promise.all(
      this.watched()
        .filter((service) => service.status === 'waiting')
        .map((service) => this.probe(service, { countFailure: false })),
    );
  }

  private async probe(service: ServiceState, { countFailure = true } = {}): Promise<void> {
    // a service whose dependency is down (lnd's chain node stopped) is not sick itself: it waits for it
    const down = dependenciesDown(this.lab, service);
    if (down.length > 0) {
      this.failedProbes.delete(service.name);
      await this.reportWaiting(service, waitingFor(down));
      return;
    }
    // nor is one cut off from what it depends on on purpose (`reglab net partition`): its probe would fail until healed
    if (this.cutOff(service)) {
      this.failedProbes.delete(service.name);
      return;
    }
    if (this.probing.has(service.name)) return;
    this.probing.add(service.name);
    let reason: string | undefined;
    try {
      const definition = kindDefinition(service.kind);
      const check = definition.health ?? definition.probe;
      if (!(await withTimeout(check.call(definition, this.session, service), PROBE_TIMEOUT_MS)))
        reason = 'its readiness probe answers not ready';
    } catch (error) {
      reason = `its readiness probe fails: ${describeError(error)}`;
    } finally {
      this.probing.delete(service.name);
    }
    if (this.busy.has(service.name) || !RUNNING_STATUSES.has(service.status)) return;
    // a dependency that went down meanwhile made it wait, or a partition cut it off: the answer says nothing of it
    if (dependenciesDown(this.lab, service).length > 0 || this.cutOff(service)) return;
    if (reason === undefined) {
      this.failedProbes.delete(service.name);
      if (service.status !== 'ready') await this.report(service, 'ready');
      return;
    }
    if (service.status === 'waiting')
      await this.reportWaiting(service, `what it depends on is ready again, its own probe not yet: ${reason}`);
    if (!countFailure) return;
    const failures = (this.failedProbes.get(service.name) ?? 0) + 1;
    this.failedProbes.set(service.name, failures);
    if (failures < this.lab.spec.supervision.unhealthy_after) return;
    if (service.status !== 'unhealthy')
      await this.report(service, 'unhealthy', `${reason} (${failures} times in a row)`);
    if (wantsRestart(service)) await this.restart(service, `unhealthy: ${reason}`);
  }

  /** Whether a network partition cuts `service` off from something it depends on. */
  private cutOff(service: ServiceState): boolean {
    return service.dependsOn.some((dependency) => isPartitioned(this.lab.network, service.name, dependency));
  }

  /** `waiting`, with why; told again only when the reason changes. */
  private async reportWaiting(service: ServiceState, reason: string): Promise<void> {
    if (service.status === 'waiting' && service.error?.startsWith(reason)) return;
    await this.report(service, 'waiting', reason);
  }

  /**
   * The services that depend on `service`, told of its change at once: they wait while it is not
   * ready, and are probed as soon as it is (so `reglab start chain` answers once its nodes are back).
   */
  private async noticeDependents(service: ServiceState | undefined): Promise<void> {
    if (!service || this.stopped) return;
    const dependents = this.watched().filter((dependent) => dependent.dependsOn.includes(service.name));
    await Promise.all(
      dependents.map((dependent) =>
        service.status === 'ready'
          ? dependent.status === 'waiting' && this.probe(dependent, { countFailure: false })
          : this.reportWaiting(dependent, waitingFor(dependenciesDown(this.lab, dependent))),
      ),
    );
  }

  /**
   * A service found dead, or left restarting, when the control plane re-attached: restarted by its policy like any
   * crash.
   */
  recover(service: ServiceState, reason: string): Promise<void> {
    return this.fail(service, undefined, reason);
  }

  /** A watched service that is gone without being asked to (whatever its exit code): report it, then restart it if its policy says so. */
  private async fail(
    service: ServiceState,
    exit: ExitStatus | undefined,
    reason = `${service.name} stopped running: ${describeExit(exit)}`,
  ): Promise<void> {
    if (this.busy.has(service.name) || this.stopped) return;
    if (!wantsRestart(service)) {
      await this.report(
        service,
        'failed',
        `${reason}; restart policy "${service.restartPolicy}" leaves it down (\`reglab start ${service.name}\` starts it)`,
      );
      return;
    }
    await this.restart(service, reason);
  }

  /**
   * Restarts with backoff, until it is ready or the limit of restarts in the window is reached. An
   * attempt the runtime's engine did not answer (Podman stopped) is not the service's failure: it
   * is not counted against the limit, and the service waits, `restarting`, until the engine answers.
   * Nor is an attempt while a service it depends on is down: it waits, `waiting`, until that one is
   * ready (a wallet server does not spend its restarts while its node is down).
   */
  private async restart(service: ServiceState, reason: string): Promise<void> {
    if (this.busy.has(service.name) || this.stopped) return;
    const work = this.restartLoop(service, reason);
    this.restarting.set(service.name, work);
    await work.finally(() => this.restarting.delete(service.name));
  }

  private async restartLoop(service: ServiceState, reason: string): Promise<void> {
    this.busy.add(service.name);
    const supervision = this.lab.spec.supervision;
    let engineDown = false;
    try {
      for (;;) {
        // without an await when nothing is down: a kill answers with the status that follows it (restarting)
        if (dependenciesDown(this.lab, service).length > 0 && !(await this.dependenciesBack(service, reason))) return;
        const recent = recentRestarts(service, supervision);
        if (recent >= supervision.max_restarts) {
          // an engine that restarts services itself (the kubelet) would go on: the service is ended
          if (service.handle && this.session.runtime.restartsServices)
            await this.session.runtime
              .stop(service.handle, kindDefinition(service.kind).stopSignal)
              .catch(() => undefined);
          await this.report(
            service,
            'failed',
            `${reason}; not restarted again: ${recent} restarts within ${supervision.window_seconds} s (supervision.max_restarts)`,
          );
          return;
        }
        const uncounted = { restarts: service.restarts, restartTimes: service.restartTimes };
        service.restarts += 1;
        service.restartTimes = [...service.restartTimes.slice(-20), new Date().toISOString()];
        await this.report(service, 'restarting', `${reason}; restarting (restart ${service.restarts})`);
        await sleep(engineDown ? ENGINE_RETRY_MS : backoffMs(recent));
        if (this.stopped) {
          // not tried: the control plane that takes the lab back tries it, counted then
          Object.assign(service, uncounted);
          await this.options.persist();
          return;
        }
        if (service.handle && (await this.session.runtime.isAlive(service.handle).catch(() => false))) {
          await this.session.runtime.stop(service.handle, kindDefinition(service.kind).stopSignal);
        } else if (service.handle) {
          // what a dead service left running (PostgreSQL's backends after its postmaster was killed) would hold its
          // data and ports
          await this.session.runtime.kill(service.handle).catch(() => undefined);
        }
        try {
          await startService(this.session, service.name, this.options, {
            as: 'restarting',
            callerReportsFailure: true,
          });
          // its initialise dialled only the partners ready then; those restarting with it are dialled too
          if (service.info.pubkey) void dialChannelPartners(this.session, service.name).catch(() => undefined);
          return;
        } catch (error) {
          engineDown = isEngineUnavailable(error);
          if (engineDown || dependenciesDown(this.lab, service).length > 0) Object.assign(service, uncounted);
          reason = `restart failed: ${describeError(error).split('\n')[0].replace(/\.$/, '')}`;
        }
      }
    } finally {
      this.busy.delete(service.name);
      this.failedProbes.delete(service.name);
      await this.updateLabStatus();
      await this.noticeDependents(service);
    }
  }

  /**
   * Waits, `waiting`, while a service `service` depends on is not ready: starting it before would
   * only fail. False when the wait is given up: the lab goes down, or a fault command takes over.
   */
  private async dependenciesBack(service: ServiceState, reason: string): Promise<boolean> {
    for (;;) {
      const down = dependenciesDown(this.lab, service);
      if (down.length === 0) return true;
      await this.reportWaiting(service, `${waitingFor(down)}, to start it again (${reason})`);
      await sleep(DEPENDENCY_RETRY_MS);
      if (this.stopped || this.calledOff.has(service.name)) return false;
    }
  }

  /**
   * Sets a status with its reason (and the log tail when it is not ready), and tells everyone at
   * once; the services that depend on it are told next.
   */
  async report(service: ServiceState, status: ServiceState['status'], reason?: string): Promise<void> {
    // the service's and the lab's status at once (a kill answers with them), the log's last lines once read
    setStatus(service, status, reason);
    const labChange = this.labStatusNow();
    const tail = status === 'ready' || status === 'waiting' ? undefined : await logTail(this.session, service);
    if (reason && tail && service.status === status)
      service.error = `${reason}\n--- last lines of ${service.name}'s log ---\n${tail}`;
    await this.options.persist();
    this.options.onEvent(serviceEvent(this.session, service, tail));
    if (labChange) this.options.onEvent(labChange);
    await this.noticeDependents(service);
  }

  private async updateLabStatus(): Promise<void> {
    const labChange = this.labStatusNow();
    if (!labChange) return;
    await this.options.persist();
    this.options.onEvent(labChange);
  }

  /** Sets the lab's status from its services' as they are now; the event to send when it changed. */
  private labStatusNow(): LabEvent | undefined {
    if (this.lab.status !== 'ready' && this.lab.status !== 'degraded') return undefined;
    const status = labStatusFromServices(this.lab);
    if (status === this.lab.status) return undefined;
    this.lab.status = status;
    return { type: 'lab', lab: this.lab.name, status, message: servicesDown(this.lab) };
  }
}
