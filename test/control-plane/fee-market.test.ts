// The lab's fee market (lab.yaml `fees`) through the control plane: lnd, the chain adapter and
// Electrum all answer the lab's rate, a force close is swept once it matures although that rate is
// above what the sweep may pay, and no part gives a rate while the chain is stopped.
import type { AuthenticatedLnd } from 'ln-service';
import { getChainFeeRate } from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { electrumCall } from '../../control-plane/src/nodes/indexer/electrum.js';
import { connectLnd } from '../../lib/lightning/lnd/connection.js';
import { waitFor } from '../../lib/wait.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { logLines } from '../support/lab-logs.js';

const LAB = 'fees';
const RATE = 100;
// alice keeps 20,000 sat of a 200,000-sat channel: half of it, what lnd may spend to sweep it,
// pays less than 100 sat/vB
const YAML = `name: ${LAB}
runtime: process
fees:
  policy: fixed
  sat_per_vbyte: ${RATE}
nodes:
  - name: alice
    funding_sat: 3000000
  - name: bob
    funding_sat: 3000000
channels:
  - from: alice
    to: bob
    capacity_sat: 200000
    push_sat: 180000
services:
  chain-adapter: {}
`;

interface NodeView {
  chainBalanceSat: number;
  channels: { id: string; partner: string; localSat: number; fundingTxid: string }[];
  pendingCloses: { fundingTxid: string; blocksUntilSweep?: number; pendingSat: number }[];
}

describe('a lab whose fee policy is a fixed 100 sat/vB', () => {
  let cp: TestControlPlane;
  const lab = async () => (await cp.call('GET', `/labs/${LAB}`)).body;
  const info = async (service: string) =>
    (await lab()).services.find((candidate: { name: string }) => candidate.name === service).info;
  const node = async (name: string): Promise<NodeView> => (await cp.call('GET', `/labs/${LAB}/nodes/${name}`)).body;
  const mine = (blocks: number) => cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks });
  const lndOf = async (name: string): Promise<AuthenticatedLnd> => {
    const credentials = (await cp.call('GET', `/labs/${LAB}/services/${name}/credentials`)).body;
    return connectLnd({
      socket: credentials.grpc,
      certBase64: Buffer.from(credentials.tlsCertPem).toString('base64'),
      macaroonHex: credentials.macaroonHex,
    });
  };

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });
  afterAll(async () => {
    await cp?.stop();
  });

  it('is the rate lnd, the chain adapter and Electrum answer, at every confirmation target', async () => {
    const lnd = await lndOf('alice');
    for (const target of [2, 6, 144, 1000])
      expect((await getChainFeeRate({ lnd, confirmation_target: target })).tokens_per_vbyte, `target ${target}`).toBe(
        RATE,
      );
    const adapter = (await info('chain-adapter')).url;
    expect(await (await fetch(`${adapter}/v1/fees/recommended`)).json()).toEqual({
      fastestFee: RATE,
      halfHourFee: RATE,
      hourFee: RATE,
      economyFee: RATE,
      minimumFee: 1,
    });
    expect(new Set(Object.values(await (await fetch(`${adapter}/fee-estimates`)).json()))).toEqual(new Set([RATE]));
    const electrum = (await info('indexer')).electrum.replace('tcp://', '');
    for (const target of [1, 6, 1008])
      expect(await electrumCall(electrum, 'blockchain.estimatefee', [target])).toBe(RATE / 100_000);
    const served = (await cp.call('GET', `/labs/${LAB}/fees/lnd`)).body;
    expect(served.min_relay_feerate).toBe(1000);
    expect(new Set(Object.values(served.fee_by_block_target))).toEqual(new Set([RATE * 1000]));
  });

  it("sweeps a force close's funds back to alice once they mature, though the rate is above what the sweep may pay", async () => {
    const channel = (await node('alice')).channels.find((candidate) => candidate.partner === 'bob')!;
    expect(channel.localSat).toBeLessThan(20_000);
    const before = (await node('alice')).chainBalanceSat;
    const closed = await cp.call('POST', `/labs/${LAB}/channels/close?wait=true`, {
      node: 'alice',
      channel_id: channel.id,
      force: true,
    });
    expect(closed.body).toMatchObject({
      state: 'completed',
      result: { force: true, maturityBlocks: expect.any(Number) },
    });
    await mine(closed.body.result.maturityBlocks);
    // no block more until alice has followed these: an lnd behind the tip bumps its fresh sweep on
    // every block it catches up on, and a bump that meets a new block confirming the sweep can leave
    // the close pending for good (lnd issue #10938)
    await waitFor(
      async () =>
        (await node('alice')).pendingCloses.some(
          (close) => close.fundingTxid === channel.fundingTxid && (close.blocksUntilSweep ?? 1) <= 0,
        ),
      { timeoutMs: 60_000, intervalMs: 250, what: "alice to follow the chain to her funds' maturity" },
    );
    // mine only when the sweep is in the mempool, so that no block meets a fee bump under way (the
    // same lnd issue); lnd publishes it at maturity, or at the next block if the maturity block came
    // before its resolver was ready: a block is mined for it only when none has come meanwhile
    const adapter = (await info('chain-adapter')).url;
    const commitment = await (await fetch(`${adapter}/tx/${closed.body.result.closingTxid}`)).json();
    const values = commitment.vout.map((output: { value: number }) => output.value);
    const toLocal = values.indexOf(channel.localSat);
    expect(toLocal, `alice's ${channel.localSat} sat among the commitment's outputs ${values}`).toBeGreaterThanOrEqual(
      0,
    );
    const sweepPublished = async () =>
      (await (await fetch(`${adapter}/tx/${closed.body.result.closingTxid}/outspends`)).json())[toLocal].spent;
    const what = "alice's sweep in the mempool";
    await waitFor(sweepPublished, { timeoutMs: 15_000, intervalMs: 250, what }).catch(async () => {
      await mine(1);
      await waitFor(sweepPublished, { timeoutMs: 60_000, intervalMs: 250, what });
    });
    await mine(1);
    const swept = waitFor(
      async () => {
        const alice = await node('alice');
        return (
          !alice.pendingCloses.some((close) => close.fundingTxid === channel.fundingTxid) &&
          alice.chainBalanceSat > before + channel.localSat - 2_000
        );
      },
      { timeoutMs: 60_000, intervalMs: 500, what: "alice's force-closed funds to be swept back to her wallet" },
    );
    // a sweep that never comes: what alice's sweeper said, to tell why
    await swept.catch(async (error: Error) => {
      const sweeper = await logLines(cp.plane.url, LAB, 'alice', /SWPR|UTXN|CNCT/);
      throw new Error(`${error.message}; alice's sweeper said:\n${sweeper.join('\n')}`);
    });
  }, 300_000);

  it('gives no rate anywhere while the chain is stopped, and the lab rate again once it is back', async () => {
    const adapter = (await info('chain-adapter')).url;
    const electrum = (await info('indexer')).electrum.replace('tcp://', '');
    expect((await cp.call('POST', `/labs/${LAB}/services/chain/stop`)).status).toBe(200);
    try {
      await waitFor(async () => (await cp.call('GET', `/labs/${LAB}/fees/lnd`)).status === 503, {
        timeoutMs: 30_000,
        what: 'the control plane to refuse fee rates while the chain is stopped',
      });
      expect((await cp.call('GET', `/labs/${LAB}/fees/lnd`)).body.error.code).toBe('NODE_UNAVAILABLE');
      for (const path of ['/v1/fees/recommended', '/fees/recommended', '/fee-estimates']) {
        await waitFor(async () => (await fetch(`${adapter}${path}`)).status === 503, {
          timeoutMs: 30_000,
          what: `${path} to answer 503 while the chain is stopped`,
        });
        expect((await (await fetch(`${adapter}${path}`)).json()).error.code, path).toBe('NODE_UNAVAILABLE');
      }
      // the indexer keeps its last answer for up to 5 s
      const refusal = await waitFor(
        () =>
          electrumCall(electrum, 'blockchain.estimatefee', [6]).then(
            () => undefined,
            (error: Error) => error,
          ),
        { timeoutMs: 30_000, what: 'Electrum to refuse fee estimates while the chain is stopped' },
      );
      expect(refusal.message).toMatch(/cannot be reached/);
    } finally {
      expect((await cp.call('POST', `/labs/${LAB}/services/chain/start`)).status).toBe(200);
    }
    await waitFor(async () => (await cp.call('GET', `/labs/${LAB}/fees/lnd`)).status === 200, {
      timeoutMs: 60_000,
      what: 'fee rates once the chain is back',
    });
    expect((await (await fetch(`${adapter}/v1/fees/recommended`)).json()).fastestFee).toBe(RATE);
  });
});
