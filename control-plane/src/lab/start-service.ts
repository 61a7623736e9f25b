import { describeError } from '../../../lib/errors.js';
import { waitFor } from '../../../lib/wait.js';
import { reroutesOf } from '../network/placement.js';
import { kindDefinition } from '../nodes/registry.js';
import { discardSignalOf, type LabAccess } from '../nodes/types.js';
import type { RuntimeHandle, StartRequest } from '../runtimes/types.js';
import { describeExit } from '../supervisor/policy.js';
import type { LabEventListener } from './events.js';
import type { LabSession } from './session.js';
import { setStatus, type ServiceState, type ServiceStatus } from './state.js';

/**
 * How often a starting service is probed: it is seen ready at most this late, and every service
 * waiting on it starts that much later (a lab's bring-up waits on three or four in a row).
 */
const PROBE_INTERVAL_MS = 50;
/** How often a starting service that does not answer yet is checked for having exited (a call to its runtime). */
const EXIT_CHECK_INTERVAL_MS = 500;

export interface ServiceStartOptions {
  onEvent: LabEventListener;
  /** Saves the lab state (called after every change worth keeping). */
  persist(): Promise<void>;
  /** How long the service may take to be ready: the lab's `supervision.start_timeout_seconds` when absent. */
  readyTimeoutMs?: number;
}

/** The service's status as an event, with what a watcher needs to act on it. */
export function serviceEvent(session: LabSession, service: ServiceState, logTail?: string) {
  return {
    type: 'service' as const,
    lab: session.lab.name,
    service: service.name,
    status: service.status,
    message: service.error,
    info: service.info,
    restarts: service.restarts,
    logTail,
  };
}

/** The last lines of a service's output, or nothing when they cannot be read. */
export function logTail(session: LabSession, service: ServiceState, lines = 15): Promise<string> {
  return session.runtime.logs({ lab: session.lab, service: service.name }, service.handle, lines).catch(() => '');
}

export interface StartHow {
  /** The status reported while it starts: `starting` when absent. */
  as?: ServiceStatus;
  /** Its place among the starts the runtime holds back (see StartRequest.precedence). */
  precedence?: number;
  /**
   * A failure is thrown but not reported: the caller (the supervisor, which may try again) says
   * what becomes of the service, which keeps its status `as` meanwhile.
   */
  callerReportsFailure?: boolean;
}

/**
 * What the runtime is asked to start for `service`: its kind's launch from the lab as `access` sees
 * it, its image, ports and policies. `reglab render --kubernetes` makes the same requests.
 */
export function startRequestOf(access: LabAccess, service: ServiceState, precedence?: number): StartRequest {
  const definition = kindDefinition(service.kind);
  return {
    lab: access.lab,
    service: service.name,
    kind: service.kind,
    image: definition.image.id,
    launch: definition.launch(access, service),
    hostPorts: service.hostPorts,
    containerPorts: service.containerPorts,
    public: service.public,
    discardSignal: discardSignalOf(definition),
    restartPolicy: service.restartPolicy,
    labServices: Object.keys(access.lab.services),
    reroutes: reroutesOf(access.lab, service.name),
    precedence,
  };
}

/**
 * Starts one service and waits until its readiness probe passes (and, for a node, its kind's
 * set-up after start); reports it `starting` (or `as`) then `ready`, or `failed` with its log tail.
 * A start given up ends what it started: a process left running would keep the service's ports,
 * and the next start's probe would reach it rather than the new process.
 */
export async function startService(
  session: LabSession,
  name: string,
  options: ServiceStartOptions,
  { as = 'starting', precedence, callerReportsFailure = false }: StartHow = {},
): Promise<void> {
  const service = session.lab.services[name];
  const definition = kindDefinition(service.kind);
  let started: RuntimeHandle | undefined;
  try {
    started = await session.runtime.start(startRequestOf(session, service, precedence));
    service.handle = started;
    if (service.status !== as) {
      setStatus(service, as);
      options.onEvent(serviceEvent(session, service));
    }
    await options.persist();
    const handle = started;
    let exitCheckedAt = Date.now();
    await waitFor(
      async () => {
        const answer = await definition.probe(session, service).then(
          (ready) => ({ ready }),
          (error: unknown) => ({ ready: false, error }),
        );
        if (answer.ready) return true;
        if (Date.now() - exitCheckedAt >= EXIT_CHECK_INTERVAL_MS) {
          exitCheckedAt = Date.now();
          if (!(await session.runtime.isAlive(handle)))
            throw new ExitedError(
              `${name} exited: ${describeExit(await session.runtime.exitStatus(handle).catch(() => undefined))}`,
            );
        }
        if ('error' in answer) throw answer.error;
        return false;
      },
      {
        timeoutMs: options.readyTimeoutMs ?? session.lab.spec.supervision.start_timeout_seconds * 1_000,
        intervalMs: PROBE_INTERVAL_MS,
        what: `${name} (${service.kind}) to be ready`,
        stopOn: (error) => error instanceof ExitedError,
      },
    );
    const found = await definition.initialise?.(session, name);
    service.info = await definition.describe(session, service);
    setStatus(service, 'ready');
    await options.persist();
    options.onEvent({ ...serviceEvent(session, service), ...(found ? { message: found } : {}) });
  } catch (error) {
    if (started) await session.runtime.kill(started).catch(() => undefined);
    const tail = await logTail(session, service);
    const why = `${describeError(error)}${tail ? `\n--- last lines of ${name}'s log ---\n${tail}` : ''}`;
    if (!callerReportsFailure) {
      setStatus(service, 'failed', why);
      await options.persist();
      options.onEvent(serviceEvent(session, service, tail));
    }
    throw new Error(`${name} did not start: ${why}`, { cause: error });
  }
}

class ExitedError extends Error {}
