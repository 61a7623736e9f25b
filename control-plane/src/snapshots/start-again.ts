import type { LabDriverOptions } from '../lab/bring-up.js';
import { reconnectChannels } from '../lab/channels-ready.js';
import { runToReady, type PhaseRunner } from '../lab/phases.js';
import { LabSession } from '../lab/session.js';
import { startInDependencyOrder } from '../lab/start-order.js';
import type { LabState } from '../lab/state.js';
import { CHAIN_SERVICE } from '../nodes/btcd/index.js';
import { kindDefinition } from '../nodes/registry.js';
import { restoreChainJournal, restoreMempool } from './chain-blocks.js';

/** Resolves once service `name`'s data is back in place. */
export type DataReady = (name: string) => Promise<void>;

export interface StartAgainSteps {
  /**
   * Phases of their own first (stop, copy). When they leave the data being restored, they answer
   * how to know each service's is back: each service then waits for its own data only (the chain
   * node, which has none, starts at once).
   */
  before(phase: PhaseRunner, session: LabSession): Promise<DataReady | void>;
  /**
   * The snapshot whose chain the lab goes back to: its blocks become the chain journal, which the chain node (it starts
   * anew, empty) is given.
   */
  replayFrom?: string;
}

/**
 * Brings back up a lab whose services' data is in place (kept while a snapshot was copied) or
 * being restored from a snapshot: every service starts as soon as what it depends on is ready and
 * its data is back, the chain node given the snapshot's blocks and transactions first; then the
 * nodes' channels are re-established.
 */
export function startAgain(lab: LabState, options: LabDriverOptions, steps: StartAgainSteps): Promise<LabSession> {
  const session = new LabSession(lab, options.runtimeOptions, options.controlPlaneUrl);
  return runToReady(session, options, async (phase) => {
    const chain = lab.services[CHAIN_SERVICE];
    // a chain node that keeps running: this session needs its certificate, which its probe reads
    if (chain.status === 'ready') await kindDefinition(chain.kind).probe(session, chain);
    const dataReady = await steps.before(phase, session);
    const { replayFrom } = steps;
    if (replayFrom !== undefined)
      await phase('chain blocks', () => restoreChainJournal(session.chainJournal, replayFrom));
    // the chain node, ready with the snapshot's blocks, gets its unconfirmed transactions before anything that depends
    // on it starts
    const restoreTransactions = async (name: string) => {
      if (name === CHAIN_SERVICE && replayFrom !== undefined) await restoreMempool(session.chain, replayFrom);
    };
    const waiting = Object.values(lab.services)
      .filter((service) => service.status !== 'ready')
      .map((service) => service.name);
    await phase('services', () =>
      startInDependencyOrder(session, waiting, options, { before: dataReady || undefined, after: restoreTransactions }),
    );
    await phase('channels', () => reconnectChannels(session));
  });
}
