// The bound on payments in flight.
import { describe, expect, it } from 'vitest';
import { Slots } from '../../control-plane/src/activity/slots.js';

describe('slots', () => {
  it('gives at most its size at once; a slot given back goes to the longest waiting', async () => {
    const slots = new Slots(2);
    const signal = new AbortController().signal;
    await slots.take(signal);
    await slots.take(signal);
    const order: string[] = [];
    const first = slots.take(signal).then(() => order.push('first'));
    const second = slots.take(signal).then(() => order.push('second'));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(slots.inUse).toBe(2);
    slots.give();
    await first;
    expect(order).toEqual(['first']);
    slots.give();
    await second;
    expect(order).toEqual(['first', 'second']);
    slots.give();
    slots.give();
    expect(slots.inUse).toBe(0);
  });

  it('stops a wait when the activity stops, and counts it no more', async () => {
    const slots = new Slots(1);
    const stopping = new AbortController();
    await slots.take(stopping.signal);
    const waiting = slots.take(stopping.signal);
    stopping.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    slots.give();
    expect(slots.inUse).toBe(0);
    await expect(slots.take(stopping.signal)).rejects.toThrow('stopped');
  });
});
