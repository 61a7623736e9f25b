import { describe, expect, it } from 'vitest';
import { StartQueue } from '../../control-plane/src/runtimes/docker/start-queue.js';

/** A start that runs until the test ends it, recording when it began. */
function startsIn(begun: string[]) {
  const ends = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  const start = (name: string) => () =>
    new Promise<string>((resolve, reject) => {
      begun.push(name);
      ends.set(name, { resolve: () => resolve(name), reject });
    });
  return {
    start,
    end: (name: string) => ends.get(name)!.resolve(),
    fail: (name: string) => ends.get(name)!.reject(new Error(`${name} failed`)),
  };
}

/** Lets every settled start's continuation run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('StartQueue', () => {
  it('runs as many starts at once as asked, then releases the held ones lowest precedence first', async () => {
    const begun: string[] = [];
    const { start, end } = startsIn(begun);
    const queue = new StartQueue(2);
    const done = [
      queue.run(5, start('bob')),
      queue.run(6, start('carol')),
      queue.run(7, start('faucet')),
      queue.run(3, start('postgres')), // its data came back late: asked last, it goes first of those held
      queue.run(7, start('wallet-server')),
    ];
    expect(begun).toEqual(['bob', 'carol']);
    end('bob');
    await settle();
    expect(begun).toEqual(['bob', 'carol', 'postgres']);
    end('carol');
    end('postgres');
    await settle();
    // equal precedence: in the order asked
    expect(begun).toEqual(['bob', 'carol', 'postgres', 'faucet', 'wallet-server']);
    end('faucet');
    end('wallet-server');
    expect(await Promise.all(done)).toEqual(['bob', 'carol', 'faucet', 'postgres', 'wallet-server']);
  });

  it('gives a failed start its error and its place to the next one', async () => {
    const begun: string[] = [];
    const { start, end, fail } = startsIn(begun);
    const queue = new StartQueue(1);
    const failed = queue.run(0, start('chain'));
    const next = queue.run(1, start('alice'));
    fail('chain');
    await expect(failed).rejects.toThrow('chain failed');
    await settle();
    expect(begun).toEqual(['chain', 'alice']);
    end('alice');
    expect(await next).toBe('alice');
  });
});
