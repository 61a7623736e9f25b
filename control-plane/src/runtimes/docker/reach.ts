import { isEngineUnavailable, type EngineReach } from '../types.js';

/**
 * Whether the container engine answers, kept from the outcome of every call to it (the supervisor
 * calls it every 2 s, and the exit watcher reconnects every second while it is away).
 */
export class EngineReachRecord {
  private last?: EngineReach;

  get current(): EngineReach | undefined {
    return this.last;
  }

  /** One call's outcome: `error` undefined or null when the engine answered, whatever it said. */
  record(error: unknown, address?: string): void {
    const answering = !isEngineUnavailable(error);
    if (this.last?.answering === answering && this.last.address === address) return;
    this.last = {
      ...(address ? { address } : {}),
      answering,
      since: new Date().toISOString(),
      ...(answering ? {} : { message: (error as Error).message }),
    };
  }
}
