// A lab whose ldk node follows the chain through the lab's chain adapter (Esplora) instead of the
// indexer: the adapter starts with the nodes, and the node confirms the channels it opens and
// accepts, forwards and pays over them.
// Its own lab: an LDK node on the chain adapter, which the default lab has not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysendBetween, payBetween } from '../../control-plane/src/lab/operations.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

describe('an ldk node on the chain adapter (chain_source: esplora)', () => {
  let regtest: Regtest;
  beforeAll(async () => {
    regtest = await startRegtest({
      lnd: ['alice', 'carol'],
      ldk: ['bob'],
      ldkChainSource: 'esplora',
      indexer: true,
      services: { 'chain-adapter': {} },
      channels: [
        { from: 'alice', to: 'bob', capacity_sat: 1_000_000 },
        { from: 'bob', to: 'carol', capacity_sat: 1_000_000 },
      ],
    });
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  it('started the chain adapter before bob, which follows the chain through it', async () => {
    const ready = regtest.events
      .filter((event) => event.type === 'service' && event.status === 'ready')
      .map((event) => event.type === 'service' && event.service);
    expect(ready.indexOf('chain-adapter')).toBeGreaterThanOrEqual(0);
    expect(ready.indexOf('chain-adapter')).toBeLessThan(ready.indexOf('bob'));
    const info = await (await fetch(`http://${regtest.address('bob', 'api')}/v1/info`)).json();
    expect(info.chain_source).toEqual({
      kind: 'esplora',
      url: `http://${regtest.address('chain-adapter', 'http')}/api`,
    });
  });

  it('has both channels of bob active, and every node can route over both', async () => {
    const bob = regtest.session.lightning('bob');
    const channels = await bob.channels.list();
    expect(channels.filter((channel) => channel.active)).toHaveLength(2);
    for (const node of ['alice', 'bob', 'carol']) {
      for (const channel of channels)
        expect(await regtest.session.lightning(node).channels.canRouteOver(channel.fundingTxid)).toBe(true);
    }
  });

  it('forwards alice -> carol and pays carol by keysend', async () => {
    expect(await payBetween(regtest.session, { from: 'alice', to: 'carol', amountSat: 7_000 })).toMatchObject({
      amountSat: 7_000,
      hops: 2,
    });
    expect(await keysendBetween(regtest.session, { from: 'bob', to: 'carol', amountSat: 2_000 })).toMatchObject({
      amountSat: 2_000,
    });
  });
});
