// rgb nodes as a lab brings them up: the lab's proxy, RLN's start sequence (init, unlock, funding,
// colored UTXOs) against the real node, and the node's RLN API ready for assets.
// Its own lab: rgb nodes, which the default lab has not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RlnClient } from '../../lib/rln/client.js';
import { startRegtest, type Regtest } from '../support/regtest.js';

describe('a lab with rgb nodes', () => {
  let regtest: Regtest;
  const client = (node: string) => new RlnClient(`http://${regtest.address(node, 'api')}`);

  beforeAll(async () => {
    regtest = await startRegtest({ rgb: ['issuer', 'holder'], indexer: true, fundingSat: 1_000_000 });
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  it('runs the consignment proxy and each node, initialised, unlocked and funded with colored UTXOs', async () => {
    const services = Object.values(regtest.lab.services);
    expect(services.map((service) => [service.name, service.kind, service.status])).toEqual(
      expect.arrayContaining([
        ['rgb-proxy', 'rgb-proxy', 'ready'],
        ['issuer', 'rgb', 'ready'],
        ['holder', 'rgb', 'ready'],
      ]),
    );
    for (const node of ['issuer', 'holder']) {
      expect(regtest.lab.services[node].info.pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
      const balance = await client(node).btcBalance();
      expect(balance.colored.settled).toBeGreaterThan(0);
      expect(balance.vanilla.settled).toBeGreaterThan(0);
    }
  });

  it('issues an asset on a node of the lab', async () => {
    const asset = await client('issuer').issueAssetNia({
      amounts: [1_000],
      ticker: 'LAB',
      name: 'Lab coin',
      precision: 0,
    });
    expect(asset).toMatchObject({ ticker: 'LAB', issued_supply: 1_000 });
  });

  it('has no Lightning side the lab can drive', () => {
    expect(() => regtest.session.lightning('holder')).toThrow(/rgb node: it has no Lightning side/);
  });
});
