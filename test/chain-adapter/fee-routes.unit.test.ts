// The adapter's fee routes answer the lab's fee policy, and 503 NODE_UNAVAILABLE (not a made-up
// fallback) while the chain node cannot be reached, as /health and /mempool do.
import { afterEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { FeePolicy } from '../../lib/chain/fee-policy.js';
import { createChainDriver } from '../../lib/chain/from-env.js';
import type { ChainDriver } from '../../lib/chain/types.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { buildApp } from '../../services/chain-adapter/src/app.js';
import { ElectrumIndexer } from '../../services/chain-adapter/src/indexer.js';
import { FakeChain, p2wpkhScript } from '../indexer/fake-chain.js';

const FEE_PATHS = [
  '/api/v1/fees/recommended',
  '/api/fees',
  '/api/fees/recommended',
  '/api/fee-estimates',
  '/api/fees/lnd',
];

describe('the chain adapter fee routes', () => {
  const closing: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });

  const adapterOver = async (driver: ChainDriver, fees?: FeePolicy): Promise<FastifyInstance> => {
    // the fee routes never read the indexer
    const indexer = new ElectrumIndexer({ host: '127.0.0.1', port: 1, protocol: 'tcp' });
    const app = await buildApp({ network: 'regtest', driver, indexer, fees });
    closing.push(
      () => app.close(),
      () => indexer.close(),
    );
    return app;
  };

  for (const fees of [undefined, { policy: 'fixed', satPerVbyte: 9 } as const]) {
    it(`answer 503 NODE_UNAVAILABLE on every fee path while the node refuses connections (${fees?.policy ?? 'node'} policy)`, async () => {
      const driver = createChainDriver({
        kind: 'btcd',
        url: `http://127.0.0.1:${await freePort()}`,
        user: 'reglab',
        password: 'reglab',
      });
      closing.push(() => driver.close());
      const app = await adapterOver(driver, fees);
      for (const url of FEE_PATHS) {
        const answer = await app.inject({ method: 'GET', url });
        expect(answer.statusCode, url).toBe(503);
        expect(answer.json().error, url).toMatchObject({
          code: 'NODE_UNAVAILABLE',
          message: expect.stringContaining('the node cannot be reached'),
        });
      }
    });
  }

  it("answer the lab's fixed rate on every path while the node answers", async () => {
    const chain = new FakeChain();
    chain.mineTo(p2wpkhScript(1));
    const app = await adapterOver(chain.asDriver(), { policy: 'fixed', satPerVbyte: 9 });
    expect((await app.inject({ method: 'GET', url: '/api/v1/fees/recommended' })).json()).toEqual({
      fastestFee: 9,
      halfHourFee: 9,
      hourFee: 9,
      economyFee: 9,
      minimumFee: 1,
    });
    expect((await app.inject({ method: 'GET', url: '/api/fee-estimates' })).json()).toMatchObject({ 1: 9, 1008: 9 });
    expect((await app.inject({ method: 'GET', url: '/api/fees/lnd' })).json()).toMatchObject({
      fee_by_block_target: { 1: 9000, 144: 9000, 1008: 9000 },
      min_relay_feerate: 1000,
    });
  });
});
