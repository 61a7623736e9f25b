import { describe, expect, it } from 'vitest';
import { byWaitingLine } from '../../control-plane/src/lab/start-order.js';
import type { ServiceState } from '../../control-plane/src/lab/state.js';

/** A lab shaped like the default one: what each service waits for. */
const services = Object.fromEntries(
  Object.entries({
    chain: [],
    postgres: [],
    redis: [],
    indexer: ['chain'],
    alice: ['chain'],
    bob: ['chain'],
    carol: ['chain'],
    'chain-adapter': ['indexer', 'chain'],
    'wallet-server': ['alice', 'postgres', 'redis'],
    faucet: ['alice', 'redis'],
  }).map(([name, dependsOn]) => [name, { name, dependsOn } as unknown as ServiceState]),
);

describe('byWaitingLine', () => {
  it('puts first the services with the longest line waiting on them, then those most waited on', () => {
    expect(byWaitingLine(services, ['bob', 'carol', 'indexer', 'alice'])).toEqual(['alice', 'indexer', 'bob', 'carol']);
    expect(byWaitingLine(services, Object.keys(services))).toEqual([
      'chain',
      'alice',
      'redis',
      'indexer',
      'postgres',
      'bob',
      'carol',
      'chain-adapter',
      'faucet',
      'wallet-server',
    ]);
  });
});
