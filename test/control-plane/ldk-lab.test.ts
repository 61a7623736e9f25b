// A lab of lnd and LDK nodes through the control plane, as its users drive it: the mixed lab of
// docs/examples/mixed-lab.yaml (alice lnd -> bob ldk -> carol lnd), with the wallet server moved to
// bob, brought up, paid across with `reglab pay`, its LDK node killed, stopped, disconnected, and
// given and closed a channel of its own.
// Its own lab: a mixed lnd/LDK shape, whose LDK node it kills, stops and disconnects.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { signInToWalletServer, type WalletServerCall } from '../support/wallet-server-user.js';

const LAB = 'ldkmix';
const YAML = readFileSync('docs/examples/mixed-lab.yaml', 'utf8')
  .replace(/^name: mixed$/m, `name: ${LAB}`)
  .replace(/(wallet-server:\n\s+node:) alice/, '$1 bob');

interface Channel {
  id: string;
  partner: string;
  capacitySat: number;
  localSat: number;
  remoteSat: number;
  active: boolean;
  fundingTxid: string;
}
interface NodeView {
  kind: string;
  status: string;
  pubkey: string;
  chainBalanceSat: number;
  channels: Channel[];
  pendingCloses: { fundingTxid: string; blocksUntilSweep?: number; pendingSat: number }[];
}

describe('a lab with an LDK node between two lnd nodes', () => {
  let cp: TestControlPlane;
  let walletServer: WalletServerCall;
  const node = async (name: string): Promise<NodeView> => (await cp.call('GET', `/labs/${LAB}/nodes/${name}`)).body;
  const service = async (name: string) =>
    (await cp.call('GET', `/labs/${LAB}`)).body.services.find((s: { name: string }) => s.name === name);
  const channelWith = async (name: string, partner: string) =>
    (await node(name)).channels.find((channel) => channel.partner === partner)!;
  const payAliceToCarol = (amountSat: number) =>
    cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'alice', to: 'carol', amount_sat: amountSat });

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
    walletServer = await signInToWalletServer(async () => (await service('wallet-server')).info.url);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('brings bob up as an ldk node: ready with its pubkey, funded, its channels to alice and carol active', async () => {
    const bob = await node('bob');
    expect(bob).toMatchObject({ kind: 'ldk', status: 'ready', pubkey: expect.stringMatching(/^0[23][0-9a-f]{64}$/) });
    expect(bob.chainBalanceSat).toBeGreaterThan(10_000_000);
    expect(bob.channels.map((channel) => [channel.partner, channel.capacitySat, channel.active]).sort()).toEqual([
      ['alice', 5_000_000, true],
      ['carol', 5_000_000, true],
    ]);
    expect((await channelWith('alice', 'bob')).active).toBe(true);
    expect((await channelWith('carol', 'bob')).active).toBe(true);
    expect((await service('bob')).info).toMatchObject({
      pubkey: bob.pubkey,
      api: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      p2p: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    const credentials = await cp.call('GET', `/labs/${LAB}/services/bob/credentials`);
    expect(credentials.body).toMatchObject({ api: (await service('bob')).info.api });
  });

  // before this file's payments: LDK killed right after one can find its ChannelManager older than a
  // channel's monitor as it starts, and force-close the channel (nodes/ldk/README.md)
  it('restarts a killed ldk node with its channels: alice pays carol through it again', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/services/bob/kill`)).status).toBe(200);
    const back = await waitFor(
      async () => {
        const bob = await service('bob');
        return bob.status === 'ready' && bob.restarts === 1 && bob;
      },
      { timeoutMs: 60_000, what: 'the supervisor to restart bob' },
    );
    expect(back.error).toBeUndefined();
    expect((await node('bob')).channels.every((channel) => channel.active)).toBe(true);
    expect((await payAliceToCarol(5_000)).body).toMatchObject({
      state: 'completed',
      result: { amountSat: 5_000, hops: 2 },
    });
  });

  it('pays alice -> carol through bob: LDK forwards, its channel balances move by the amount', async () => {
    const [fromAlice, toCarol] = [await channelWith('bob', 'alice'), await channelWith('bob', 'carol')];
    const paid = await payAliceToCarol(20_000);
    expect(paid.body).toMatchObject({ state: 'completed', result: { amountSat: 20_000, hops: 2 } });
    const [fromAliceAfter, toCarolAfter] = [await channelWith('bob', 'alice'), await channelWith('bob', 'carol')];
    expect(fromAliceAfter.localSat - fromAlice.localSat).toBe(20_000 + paid.body.result.feeSat);
    expect(toCarol.localSat - toCarolAfter.localSat).toBe(20_000);
  });

  it('has bob pay carol, by invoice and by keysend, and receive from alice', async () => {
    const byInvoice = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'bob',
      to: 'carol',
      amount_sat: 3_000,
    });
    expect(byInvoice.body).toMatchObject({
      state: 'completed',
      result: { amountSat: 3_000, preimage: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const keysend = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'bob',
      to: 'carol',
      amount_sat: 2_000,
      keysend: true,
    });
    expect(keysend.body).toMatchObject({ state: 'completed', result: { amountSat: 2_000 } });
    const received = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'bob',
      amount_sat: 4_000,
    });
    expect(received.body).toMatchObject({ state: 'completed', result: { amountSat: 4_000, hops: 1 } });
    // LDK records its claim a moment after the payer has the preimage
    const invoice = await waitFor(
      async () => {
        const found = await cp.call('GET', `/labs/${LAB}/nodes/bob/invoices/${received.body.result.paymentHash}`);
        return found.body.state === 'accepted' ? undefined : found;
      },
      { timeoutMs: 30_000, what: "bob's invoice to leave the accepted state" },
    );
    expect(invoice.body).toMatchObject({ state: 'settled', amount_msat: '4000000', received_msat: '4000000' });
  });

  it('holds an invoice of bob until it is settled, and cancels another: the payer is refused', async () => {
    const held = (await cp.call('POST', `/labs/${LAB}/nodes/bob/invoices`, { amount_msat: 6_000_000, hold: true }))
      .body;
    const paying = cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'alice', invoice: held.payment_request });
    await waitFor(
      async () =>
        (await cp.call('GET', `/labs/${LAB}/nodes/bob/invoices/${held.payment_hash}`)).body.state === 'accepted',
      { timeoutMs: 30_000, what: 'bob to hold the payment' },
    );
    expect(
      (
        await cp.call('POST', `/labs/${LAB}/nodes/bob/invoices/${held.payment_hash}/settle`, {
          preimage: held.preimage,
        })
      ).status,
    ).toBe(200);
    expect((await paying).body).toMatchObject({ state: 'completed', result: { preimage: held.preimage } });

    const canceled = (await cp.call('POST', `/labs/${LAB}/nodes/bob/invoices`, { amount_msat: 7_000_000 })).body;
    expect((await cp.call('POST', `/labs/${LAB}/nodes/bob/invoices/${canceled.payment_hash}/cancel`)).status).toBe(200);
    expect(
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'alice', invoice: canceled.payment_request }))
        .body.state,
    ).toBe('failed');
    expect((await cp.call('GET', `/labs/${LAB}/nodes/bob/invoices/${canceled.payment_hash}`)).body).toMatchObject({
      state: 'canceled',
      received_msat: '0',
    });
  });

  it('runs the wallet server on bob: a wallet receives from alice and pays carol', async () => {
    expect((await walletServer('GET', '/health')).body.checks.ldk).toMatchObject({
      ok: true,
      details: { alias: 'bob', synced_to_chain: true },
    });
    const wallet = (await walletServer('POST', '/wallets', { name: 'on-ldk' })).body.id as string;
    const funding = (await walletServer('POST', '/payments/invoices', { amount_msat: 50_000_000 }, wallet)).body;
    expect(
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'alice', invoice: funding.payment_request }))
        .body.state,
    ).toBe('completed');
    await waitFor(async () => (await walletServer('GET', `/wallets/${wallet}`)).body.balance_msat === '50000000', {
      timeoutMs: 20_000,
      what: 'the wallet to be credited',
    });
    const carolInvoice = (await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices`, { amount_msat: 10_000_000 })).body;
    const paid = await walletServer('POST', '/payments/pay', { invoice: carolInvoice.payment_request }, wallet);
    expect(paid.body).toMatchObject({ status: 'succeeded', amount_msat: '10000000' });
    expect((await cp.call('GET', `/labs/${LAB}/nodes/carol/invoices/${carolInvoice.payment_hash}`)).body.state).toBe(
      'settled',
    );
    expect((await walletServer('GET', `/wallets/${wallet}`)).body.balance_msat).toBe(
      String(40_000_000 - Number(paid.body.fee_msat)),
    );
  });

  it('refuses a stopped ldk node as payer, and pays again once it is started', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/services/bob/stop`)).body.status).toBe('stopped');
    const refused = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'bob',
      to: 'carol',
      amount_sat: 1_000,
    });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({
      status: 409,
      code: 'SERVICE_NOT_READY',
    });
    expect((await cp.call('POST', `/labs/${LAB}/services/bob/start`)).body.status).toBe('ready');
    expect(
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'bob', to: 'carol', amount_sat: 1_000 })).body
        .state,
    ).toBe('completed');
  });

  it('disconnects and reconnects alice and bob as peers', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/peers/disconnect`, { a: 'bob', b: 'alice' })).status).toBe(200);
    await waitFor(async () => !(await channelWith('alice', 'bob')).active, {
      timeoutMs: 20_000,
      what: "alice's channel to bob to go inactive",
    });
    expect((await cp.call('POST', `/labs/${LAB}/peers/connect`, { a: 'bob', b: 'alice' })).status).toBe(200);
    await waitFor(async () => (await channelWith('alice', 'bob')).active, {
      timeoutMs: 30_000,
      what: "alice's channel to bob to be active again",
    });
    expect((await payAliceToCarol(1_000)).body.state).toBe('completed');
  });

  it('opens a channel from bob to alice, and force-closes it: bob reports when its funds are swept, and counts them once', {
    timeout: 300_000,
  }, async () => {
    const opened = await cp.call('POST', `/labs/${LAB}/channels?wait=true`, {
      from: 'bob',
      to: 'alice',
      capacity_sat: 400_000,
      push_sat: 100_000,
    });
    expect(opened.body.state).toBe('completed');
    const { fundingTxid, fundingVout } = opened.body.result;
    const channel = (await node('bob')).channels.find((candidate) => candidate.fundingTxid === fundingTxid)!;
    expect(channel).toMatchObject({
      id: `${fundingTxid}:${fundingVout}`,
      partner: 'alice',
      capacitySat: 400_000,
      active: true,
    });
    expect((await node('alice')).channels.find((candidate) => candidate.fundingTxid === fundingTxid)).toMatchObject({
      partner: 'bob',
      active: true,
    });

    const closed = await cp.call('POST', `/labs/${LAB}/channels/close?wait=true`, {
      node: 'bob',
      channel_id: channel.id,
      force: true,
    });
    expect(closed.body).toMatchObject({
      state: 'completed',
      result: {
        channelId: channel.id,
        force: true,
        closingTxid: expect.stringMatching(/^[0-9a-f]{64}$/),
        maturityBlocks: expect.any(Number),
      },
    });
    const pending = (await node('bob')).pendingCloses.find((close) => close.fundingTxid === fundingTxid);
    expect(pending?.pendingSat).toBeGreaterThan(250_000);
    expect((await node('bob')).channels.some((candidate) => candidate.fundingTxid === fundingTxid)).toBe(false);

    // the funds are counted once: pending until the sweep is confirmed, then on-chain only
    const before = (await node('bob')).chainBalanceSat;
    const counted = async () => {
      const bob = await node('bob');
      const closing = bob.pendingCloses.find((close) => close.fundingTxid === fundingTxid);
      expect(bob.chainBalanceSat + (closing?.pendingSat ?? 0)).toBeLessThanOrEqual(before + pending!.pendingSat);
      return { bob, closing };
    };
    await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: pending!.blocksUntilSweep });
    await waitFor(
      async () => {
        await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
        const { bob, closing } = await counted();
        return closing === undefined && bob.chainBalanceSat > before + pending!.pendingSat - 5_000;
      },
      { timeoutMs: 120_000, intervalMs: 1_000, what: "bob's force-closed funds to be swept back to its wallet" },
    );
    for (let block = 0; block < 10; block++) {
      await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
      expect((await counted()).closing).toBeUndefined();
    }
  });
});
