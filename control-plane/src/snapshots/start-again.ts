import type { LabDriverOptions } from '../lab/bring-up.js';
import { reconnectChannels } from '../lab/channels-ready.js';
import { runToReady, type PhaseRunner } from '../lab/phases.js';
import { LabSession } from '../lab/session.js';
import { startInDependencyOrder } from '../lab/start-order.js';
import type { LabState } from '../lab/state.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { kindDefinition } from '../nodes/registry.js';
import { replayChain } from './chain-blocks.js';

export interface StartAgainSteps {
  /** Phases of their own first (stop, copy, restore the data). */
  before(phase: PhaseRunner, session: LabSession): Promise<void>;
  /** The snapshot whose blocks the chain node gets once started, when it is started anew. */
  replayFrom?: string;
}

/**
 * Brings back up a lab whose services' data is in place (kept while a snapshot was copied, or
 * restored from one): the chain node first, given the snapshot's blocks, with what needs no chain
 * (the databases) beside it; then every other service as soon as what it depends on is ready;
 * then the nodes' channels are re-established.
 */
export function startAgain(lab: LabState, options: LabDriverOptions, steps: StartAgainSteps): Promise<LabSession> {
  const session = new LabSession(lab, options.runtimeOptions, options.controlPlaneUrl);
  const start = (names: string[]) => startInDependencyOrder(session, names, options);
  return runToReady(session, options, async (phase) => {
    const chain = lab.services[CHAIN_SERVICE];
    // a chain node that keeps running: this session needs its certificate, which its probe reads
    if (chain.status === 'ready') await kindDefinition(chain.kind).probe(session, chain);
    await steps.before(phase, session);
    const waiting = Object.values(lab.services).filter((service) => service.status !== 'ready' && service.name !== CHAIN_SERVICE);
    const independent = start(waiting.filter((service) => service.dependsOn.length === 0).map((service) => service.name));
    independent.catch(() => undefined); // awaited below; it must not be an unhandled rejection meanwhile
    if (steps.replayFrom !== undefined) {
      const snapshotDir = steps.replayFrom;
      await phase('chain', async () => {
        await start([CHAIN_SERVICE]);
        await replayChain(session.chain, snapshotDir);
      });
    }
    await phase('services', async () => {
      await independent;
      await start(waiting.filter((service) => service.dependsOn.length > 0).map((service) => service.name));
    });
    await phase('channels', () => reconnectChannels(session));
  });
}
