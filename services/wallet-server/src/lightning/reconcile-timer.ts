// The periodic passes that catch what the node changed behind the server's back (invoices settled
// while it was down, payments it lost track of, node invoices still to cancel) run one after
// another on one timer. On three timers of the same period they ran at the same moment, each on a
// Postgres connection of its own: an idle server had Postgres start three backends, each with its
// own memory, every interval, where one is enough.
import type { FastifyBaseLogger } from 'fastify';

export interface ReconcilePass {
  /** What the warning says failed, e.g. "invoice reconcile". */
  what: string;
  run(): Promise<void>;
}

export interface ReconcileTimer {
  /** Clears the timer and waits for a round under way. */
  stop(): Promise<void>;
}

/** Every `intervalMs`, the passes in order; a round still running when the next is due is not doubled. */
export function startReconcileTimer(
  intervalMs: number,
  passes: ReconcilePass[],
  log: FastifyBaseLogger,
): ReconcileTimer {
  let round: Promise<void> | null = null;
  const runRound = async (): Promise<void> => {
    for (const pass of passes) await pass.run().catch((err) => log.warn({ err }, `${pass.what} failed`));
  };
  const timer = setInterval(() => {
    round ??= runRound().finally(() => {
      round = null;
    });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await round;
    },
  };
}
