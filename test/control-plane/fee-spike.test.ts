// A fee spike as a fault: `reglab fees spike 50 --blocks 3` on a lab whose policy is 2 sat/vB (lnd
// answers no less than 253 sat/kw, 1.012 sat/vB). While
// it holds, lnd (its fee estimate), the chain adapter's fee routes and Electrum's estimatefee all
// answer the raised rate; once the chain has grown by 3 blocks they are back to the policy's rate.
// Its own lab: it restarts the chain adapter and the indexer.
import type { AuthenticatedLnd } from 'ln-service';
import { getChainFeeRate } from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electrumCall } from '../../control-plane/src/nodes/indexer/electrum.js';
import { connectLnd } from '../../lib/lightning/lnd/connection.js';
import { waitFor } from '../../lib/wait.js';
import { reglabOf } from '../support/cli.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';

const LAB = 'spike';
const YAML = `name: ${LAB}
fees: { policy: fixed, sat_per_vbyte: 2 }
nodes:
  - { name: alice, funding_sat: 3000000 }
  - { name: bob, funding_sat: 3000000 }
channels:
  - { from: alice, to: bob, capacity_sat: 200000 }
services:
  chain-adapter: {}
`;

describe('a fee spike', () => {
  let cp: TestControlPlane;
  let lnd: AuthenticatedLnd;
  const info = async (service: string) =>
    (await cp.call('GET', `/labs/${LAB}`)).body.services.find(
      (candidate: { name: string }) => candidate.name === service,
    ).info;
  const reglab = (...args: string[]) => reglabOf(cp.home, '--lab', LAB, ...args);

  /** The rates each part of the lab answers now, as sets (one rate at every target). */
  const answered = async () => {
    const adapter = (await info('chain-adapter')).url as string;
    const electrum = ((await info('indexer')).electrum as string).replace('tcp://', '');
    return {
      lnd: new Set(
        await Promise.all(
          [2, 6, 144].map(
            async (target) => (await getChainFeeRate({ lnd, confirmation_target: target })).tokens_per_vbyte,
          ),
        ),
      ),
      adapter: new Set(Object.values((await (await fetch(`${adapter}/fee-estimates`)).json()) as number[])),
      recommended: ((await (await fetch(`${adapter}/v1/fees/recommended`)).json()) as { fastestFee: number })
        .fastestFee,
      electrum: new Set(
        await Promise.all([1, 6, 1008].map((target) => electrumCall(electrum, 'blockchain.estimatefee', [target]))),
      ),
    };
  };
  const everywhere = (rate: number) => ({
    lnd: new Set([rate]),
    adapter: new Set([rate]),
    recommended: rate,
    electrum: new Set([rate / 100_000]),
  });

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
    const credentials = (await cp.call('GET', `/labs/${LAB}/services/alice/credentials`)).body;
    lnd = connectLnd({
      socket: credentials.grpc,
      certBase64: Buffer.from(credentials.tlsCertPem).toString('base64'),
      macaroonHex: credentials.macaroonHex,
    });
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('raises what lnd, the chain adapter and Electrum answer for N blocks, then lets them fall back', async () => {
    expect(await answered()).toEqual(everywhere(2));
    const set = await reglab('fees', 'spike', '50', '--blocks', '3');
    expect(set.code, set.stderr).toBe(0);
    const height = (await cp.call('GET', `/labs/${LAB}/fees`)).body.height as number;
    expect(set.stdout).toBe(
      `lab ${LAB} at height ${height}: fees fixed at 2 sat/vB; fee spike: every rate at least 50 sat/vB until height ${height + 3} (3 blocks left)\n`,
    );
    // lnd reads its fee URL again within seconds
    await waitFor(async () => JSON.stringify([...(await answered()).lnd]) === '[50]', {
      timeoutMs: 60_000,
      what: 'lnd to estimate 50 sat/vB',
    });
    expect(await answered()).toEqual(everywhere(50));

    await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 2 });
    expect((await cp.call('GET', `/labs/${LAB}/fees`)).body.spike).toMatchObject({ active: true, blocksLeft: 1 });
    await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
    const status = await reglab('--json', 'fees', 'status');
    expect(JSON.parse(status.stdout).spike).toMatchObject({ satPerVbyte: 50, active: false, blocksLeft: 0 });
    const flat = (rates: Awaited<ReturnType<typeof answered>>) =>
      JSON.stringify([[...rates.lnd], [...rates.adapter], rates.recommended, [...rates.electrum]]);
    await waitFor(async () => flat(await answered()) === flat(everywhere(2)), {
      timeoutMs: 60_000,
      what: 'every part to answer 2 sat/vB again',
    });
    expect(await answered()).toEqual(everywhere(2));
  });

  it('refuses a rate out of range, changing nothing', async () => {
    const refused = await cp.call('POST', `/labs/${LAB}/fees/spike`, { sat_per_vbyte: 5000, blocks: 2 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBeDefined();
    expect((await cp.call('GET', `/labs/${LAB}/fees`)).body.spike).toMatchObject({ satPerVbyte: 50, active: false });
    const cli = await reglab('fees', 'spike', '0', '--blocks', '2');
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('sat_per_vbyte must be a whole number from 1, not "0"');
  });
});
