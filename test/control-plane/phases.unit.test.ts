// Bringing a lab to ready through its phases (lab/phases.ts).
import { describe, expect, it } from 'vitest';
import { runToReady } from '../../control-plane/src/lab/phases.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';

function sessionOf() {
  // a lab without an indexer: nothing to wait for before it is ready
  const lab = { name: 'demo', status: 'stopping', phases: [] as { name: string; ms: number }[], services: {} } as {
    name: string;
    status: string;
    error?: string;
    phases: { name: string; ms: number }[];
    services: object;
  };
  let closed = false;
  const session = { lab, close: () => (closed = true) } as unknown as Parameters<typeof runToReady>[0];
  return { lab, session, closed: () => closed };
}

describe('runToReady', () => {
  it('hands the lab over (beforeReady) before anyone can see it ready, then saves and announces it', async () => {
    const { lab, session } = sessionOf();
    const seen: string[] = [];
    const events: LabEvent[] = [];
    await runToReady(
      session,
      {
        onEvent: (event) => events.push(event),
        persist: async () => void seen.push(`persist ${lab.status}`),
        beforeReady: async () =>
          void seen.push(
            `beforeReady ${lab.status}, ${events.filter((event) => event.type === 'lab').length} lab events`,
          ),
      },
      async (phase) => {
        await phase('services', async () => undefined);
      },
    );
    expect(seen).toEqual(['persist starting', 'beforeReady starting, 0 lab events', 'persist ready']);
    expect(events.map((event) => (event.type === 'lab' ? `lab ${event.status}` : event.type))).toEqual([
      'phase',
      'lab ready',
    ]);
  });

  it('never hands over a lab whose steps failed: it is failed, announced so, its session closed', async () => {
    const { lab, session, closed } = sessionOf();
    let handedOver = false;
    const events: LabEvent[] = [];
    await expect(
      runToReady(
        session,
        {
          onEvent: (event) => events.push(event),
          persist: async () => undefined,
          beforeReady: async () => void (handedOver = true),
        },
        async () => {
          throw new Error('alice did not start');
        },
      ),
    ).rejects.toThrow('alice did not start');
    expect(handedOver).toBe(false);
    expect(lab).toMatchObject({ status: 'failed', error: 'alice did not start' });
    expect(events).toEqual([{ type: 'lab', lab: 'demo', status: 'failed', message: 'alice did not start' }]);
    expect(closed()).toBe(true);
  });
});
