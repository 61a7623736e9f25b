// The wallet server's reconcile timer: its passes take turns (one Postgres connection is enough for
// them at rest), a slow round is not doubled, a failing pass is logged and does not stop the others.
import type { FastifyBaseLogger } from 'fastify';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startReconcileTimer } from '../../services/wallet-server/src/lightning/reconcile-timer.js';

function logDouble() {
  const warnings: string[] = [];
  return {
    warnings,
    log: { warn: (_: unknown, message: string) => warnings.push(message) } as unknown as FastifyBaseLogger,
  };
}

/** A pass that records its start and end, and finishes when its test says. */
function pass(name: string, trace: string[]) {
  const pending: (() => void)[] = [];
  return {
    what: name,
    run: () => {
      trace.push(`${name} start`);
      return new Promise<void>((resolve) =>
        pending.push(() => {
          trace.push(`${name} end`);
          resolve();
        }),
      );
    },
    finish: async () => {
      pending.shift()!();
      await vi.advanceTimersByTimeAsync(0);
    },
  };
}

describe('reconcile timer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs its passes one after another, and skips a tick while a round is under way', async () => {
    const trace: string[] = [];
    const a = pass('a', trace);
    const b = pass('b', trace);
    const timer = startReconcileTimer(1_000, [a, b], logDouble().log);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(trace).toEqual(['a start']);
    await vi.advanceTimersByTimeAsync(3_000); // three more ticks while a still runs
    expect(trace).toEqual(['a start']);
    await a.finish();
    expect(trace).toEqual(['a start', 'a end', 'b start']);
    await b.finish();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(trace).toEqual(['a start', 'a end', 'b start', 'b end', 'a start']);
    await a.finish();
    await b.finish();
    await timer.stop();
  });

  it('logs a failing pass and goes on to the next', async () => {
    const { log, warnings } = logDouble();
    const ran: string[] = [];
    const timer = startReconcileTimer(
      1_000,
      [
        {
          what: 'invoice reconcile',
          run: async () => {
            throw new Error('node down');
          },
        },
        {
          what: 'payment reconcile',
          run: async () => {
            ran.push('payments');
          },
        },
      ],
      log,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(warnings).toEqual(['invoice reconcile failed']);
    expect(ran).toEqual(['payments']);
    await timer.stop();
  });

  it('stops: waits for the round under way and starts no other', async () => {
    const trace: string[] = [];
    const a = pass('a', trace);
    const timer = startReconcileTimer(1_000, [a], logDouble().log);
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = timer.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    await a.finish();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(trace).toEqual(['a start', 'a end']);
  });
});
