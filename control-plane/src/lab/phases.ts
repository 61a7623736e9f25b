import { describeError } from '../../../lib/errors.js';
import type { LabEventListener } from './events.js';
import { waitIndexed } from './indexed-tip.js';
import type { LabSession } from './session.js';

/** Runs one named step of bringing a lab up, recording how long it took. */
export type PhaseRunner = <T>(name: string, work: () => Promise<T>) => Promise<T>;

export interface PhaseOptions {
  onEvent: LabEventListener;
  /** Saves the lab state (called after every change worth keeping). */
  persist(): Promise<void>;
  /**
   * Runs once every step is done, before the lab is reported ready: whoever runs the lab takes it
   * over here, so that a lab seen ready (polled or announced) accepts its actions at once.
   */
  beforeReady?(session: LabSession): Promise<void>;
}

/**
 * Brings `session`'s lab to ready through `steps` (a bring-up, a restore from a snapshot): each
 * phase's duration is recorded and sent as an event; the lab ends `ready`, or `failed` with the
 * error (its connections closed).
 */
export async function runToReady(
  session: LabSession,
  options: PhaseOptions,
  steps: (phase: PhaseRunner) => Promise<void>,
): Promise<LabSession> {
  const lab = session.lab;
  lab.status = 'starting';
  lab.error = undefined;
  lab.phases = [];
  const phase: PhaseRunner = async (name, work) => {
    const started = Date.now();
    const result = await work();
    const ms = Date.now() - started;
    lab.phases.push({ name, ms });
    options.onEvent({ type: 'phase', lab: lab.name, phase: name, ms });
    await options.persist();
    return result;
  };
  try {
    await steps(phase);
    // a lab seen ready shows its last blocks (its nodes' funding, their channels) to Electrum
    // clients and the chain adapter too, not only to its nodes
    await waitIndexed(session);
    await options.beforeReady?.(session);
    lab.status = 'ready';
    await options.persist();
    options.onEvent({ type: 'lab', lab: lab.name, status: 'ready' });
    return session;
  } catch (error) {
    lab.status = 'failed';
    lab.error = describeError(error);
    await options.persist();
    options.onEvent({ type: 'lab', lab: lab.name, status: 'failed', message: lab.error });
    session.close();
    throw error;
  }
}
