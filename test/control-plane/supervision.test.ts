// The supervisor and the fault commands on a default-shaped lab, checked as the user would:
// kill -9 a service in the middle of a payment, kill lnd, stop a node, restart policies.
// Its own lab: it kills and stops services and nodes, and disconnects peers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import {
  bringUpLab,
  collectEvents,
  defaultLabYaml,
  startTestControlPlane,
  type TestControlPlane,
  pidOf as pidOfService,
} from '../support/control-plane.js';
import { signInToWalletServer, type WalletServerCall } from '../support/wallet-server-user.js';

const LAB = 'sup';
// alice -> bob pushes 2,000,000 sat to bob, so bob can pay the wallet server (on alice); the faucet
// is left down when it dies (restart: no)
const YAML = defaultLabYaml(LAB)
  .replace(/(- from: alice\n\s+to: bob\n\s+capacity_sat: 5000000\n\s+push_sat:) 0/, '$1 2000000')
  .concat('\nsupervision:\n  services:\n    faucet: "no"\n');

type Service = { name: string; status: string; error?: string; restarts: number };

describe('supervision and fault commands', () => {
  let cp: TestControlPlane;
  const lab = async () => (await cp.call('GET', `/labs/${LAB}`)).body;
  const service = async (name: string): Promise<Service> =>
    (await lab()).services.find((s: Service) => s.name === name);
  const pidOf = (name: string) => pidOfService(cp, LAB, name);
  let walletServer: WalletServerCall;

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
    const base = ((await service('wallet-server')) as unknown as { info: { url: string } }).info.url;
    walletServer = await signInToWalletServer(async () => base);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  // how fast the supervisor sees a death and brings the service back is bench:supervisor's figure
  it('sees a wallet server killed during payments to hold invoices, brings it back, then debits the settled one once and refunds the cancelled one', async () => {
    const wallet = (await walletServer('POST', '/wallets', { name: 'crash' })).body.id as string;
    const funding = (await walletServer('POST', '/payments/invoices', { amount_msat: 300_000_000 }, wallet)).body;
    expect(
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'bob', invoice: funding.payment_request })).body
        .state,
    ).toBe('completed');
    await waitFor(async () => (await walletServer('GET', `/wallets/${wallet}`)).body.balance_msat === '300000000', {
      timeoutMs: 20_000,
      what: 'the wallet funded',
    });

    const held = await Promise.all(
      [1, 2].map(
        async () =>
          (await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices`, { amount_msat: 50_000_000, hold: true })).body,
      ),
    );
    for (const invoice of held)
      void walletServer('POST', '/payments/pay', { invoice: invoice.payment_request }, wallet).catch(() => undefined);
    for (const invoice of held) {
      await waitFor(
        async () =>
          (await cp.call('GET', `/labs/${LAB}/nodes/carol/invoices/${invoice.payment_hash}`)).body.state === 'accepted',
        { timeoutMs: 30_000, what: 'carol to hold the payment' },
      );
    }

    const events = collectEvents(`${cp.plane.url}/labs/${LAB}/events`);
    process.kill(pidOf('wallet-server'), 'SIGKILL');
    await waitFor(async () => (await service('wallet-server')).status !== 'ready', {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the status to show the wallet server down',
    });
    expect((await lab()).status).toBe('degraded');
    await waitFor(
      async () =>
        events.events.some(
          (event) => event.type === 'service' && event.service === 'wallet-server' && event.status !== 'ready',
        ),
      { timeoutMs: 30_000, intervalMs: 50, what: 'an event about the wallet server' },
    );
    await waitFor(async () => (await walletServer('GET', '/health').catch(() => ({ status: 0 }))).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the wallet server to serve again',
    });
    const restarted = await waitFor(
      async () => {
        const found = await service('wallet-server');
        return found.status === 'ready' && found;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the supervisor to report the wallet server ready' },
    );
    expect(restarted.restarts).toBe(1);
    // after the stream's snapshot of the current state: the crash, then the recovery
    const statuses = () =>
      events.events
        .filter((event) => event.type === 'service' && event.service === 'wallet-server')
        .map((event) => event.type === 'service' && event.status);
    const recovery = await waitFor(
      async () => {
        const after = statuses().slice(statuses().indexOf('restarting'));
        return after.at(-1) === 'ready' && after;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: 'the ready event' },
    );
    expect(recovery).toEqual(['restarting', 'ready']);
    events.stop();

    const [settled, cancelled] = held;
    expect(
      (
        await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices/${settled.payment_hash}/settle`, {
          preimage: settled.preimage,
        })
      ).status,
    ).toBe(200);
    expect((await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices/${cancelled.payment_hash}/cancel`)).status).toBe(
      200,
    );
    const payments = await waitFor(
      async () => {
        const pays = await Promise.all(
          held.map(
            async (invoice) =>
              (await walletServer('GET', `/payments/invoices/${invoice.payment_hash}`, undefined, wallet)).body,
          ),
        );
        return pays.every((p) => p?.status === 'succeeded' || p?.status === 'failed') && pays;
      },
      { timeoutMs: 30_000, what: 'both payments resolved after the restart' },
    );
    expect(payments.map((p) => p.status)).toEqual(['succeeded', 'failed']);
    const fee = BigInt(payments[0].fee_msat);
    expect((await walletServer('GET', `/wallets/${wallet}`)).body.balance_msat).toBe(
      (300_000_000n - 50_000_000n - fee).toString(),
    );
  });

  it('keeps every transfer it answered when Postgres is killed right after: the ledger is the same once Postgres is back', async () => {
    const [from, to] = await Promise.all(
      ['sender', 'receiver'].map(async (name) => (await walletServer('POST', '/wallets', { name })).body.id as string),
    );
    const funding = (await walletServer('POST', '/payments/invoices', { amount_msat: 100_000_000 }, from)).body;
    expect(
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'bob', invoice: funding.payment_request })).body
        .state,
    ).toBe('completed');
    await waitFor(async () => (await walletServer('GET', `/wallets/${from}`)).body.balance_msat === '100000000', {
      timeoutMs: 20_000,
      what: 'the wallet funded',
    });

    const transfers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        walletServer('POST', '/payments/internal', {
          from_wallet_id: from,
          to_wallet_id: to,
          asset_kind: 'btc',
          amount_msat: 1_000_000 * (i + 1),
        }),
      ),
    );
    expect((await cp.call('POST', `/labs/${LAB}/services/postgres/kill`)).status).toBe(200);
    expect(transfers.map((transfer) => transfer.status)).toEqual(Array(10).fill(200));

    const balances = await waitFor(
      async () => {
        const answers = await Promise.all([from, to].map((wallet) => walletServer('GET', `/wallets/${wallet}`)));
        return answers.every((answer) => answer.status === 200) && answers.map((answer) => answer.body.balance_msat);
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the wallet server to answer from the restarted Postgres' },
    );
    expect(balances).toEqual([(100_000_000 - 55_000_000).toString(), '55000000']);
  });

  it('brings a killed Redis back with the sign-in sessions it held: the user is still signed in', async () => {
    expect((await walletServer('GET', '/me')).status).toBe(200);
    expect((await cp.call('POST', `/labs/${LAB}/services/redis/kill`)).status).toBe(200);
    // 502 while Redis is down; then the session is there (200) or lost (401 SESSION_ENDED)
    const answer = await waitFor(
      async () => {
        const me = await walletServer('GET', '/me');
        return (me.status === 200 || me.status === 401) && me;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the wallet server to answer from the restarted Redis' },
    );
    expect(answer.body?.error?.code).toBeUndefined();
    expect(answer.status).toBe(200);
  });

  it('restarts a killed lnd with its channels: the lab is degraded and the wallet server answers 502 meanwhile, then a payment succeeds', async () => {
    const wallet = (await walletServer('POST', '/wallets', { name: 'lnd-down' })).body.id as string;
    // the services on Redis, killed just before, may still be waiting for it
    await waitFor(async () => (await lab()).status === 'ready', { timeoutMs: 30_000, what: 'the lab ready' });
    process.kill(pidOf('alice'), 'SIGKILL');
    await waitFor(async () => (await lab()).status === 'degraded', {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: 'the lab to be degraded',
    });
    let saw502 = false;
    await waitFor(
      async () => {
        const invoice = await walletServer('POST', '/payments/invoices', { amount_msat: 1_000 }, wallet);
        if (invoice.status === 502) saw502 = true;
        return saw502 && (await service('alice')).status === 'ready';
      },
      { timeoutMs: 60_000, intervalMs: 100, what: 'a 502 while alice is down, then alice ready' },
    );
    expect(saw502).toBe(true);
    expect((await service('alice')).restarts).toBe(1);
    const paid = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 1_000,
    });
    expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
    expect(paid.body.result.hops).toBe(2);
  });

  it('leaves a service stopped on purpose: a payment to it fails clearly, and works once it is started', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/services/carol/stop`)).body).toEqual({
      service: 'carol',
      status: 'stopped',
    });
    const refused = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 1_000,
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: 'SERVICE_NOT_READY',
      message: expect.stringContaining('carol is stopped: start it with `reglab start carol`'),
    });
    expect(await service('carol')).toMatchObject({ status: 'stopped', restarts: 0 });
    expect((await cp.call('POST', `/labs/${LAB}/services/carol/start`)).body).toEqual({
      service: 'carol',
      status: 'ready',
    });
    const paid = await waitFor(
      async () => {
        const payment = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
          from: 'alice',
          to: 'carol',
          amount_sat: 1_000,
        });
        return payment.body.state === 'completed' && payment.body;
      },
      { timeoutMs: 30_000, what: 'a payment to carol once started' },
    );
    expect(paid.result.amountSat).toBe(1_000);
    expect((await lab()).status).toBe('ready');
  });

  it('does not restart a service whose policy is "no": it stays failed with the kill named', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/services/faucet/kill`)).status).toBe(200);
    const failed = await waitFor(
      async () => {
        const faucet = await service('faucet');
        return faucet.status === 'failed' && faucet;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the faucet to be reported failed' },
    );
    expect(failed.error).toContain('killed by SIGKILL');
    expect(failed.error).toContain('restart policy "no"');
    expect(failed.restarts).toBe(0);
    expect((await cp.call('POST', `/labs/${LAB}/services/faucet/start`)).body.status).toBe('ready');
  });

  it('disconnects and reconnects two Lightning peers', async () => {
    const bobSees = async () =>
      (await cp.call('GET', `/labs/${LAB}/nodes/bob`)).body.channels.find(
        (channel: { partner: string }) => channel.partner === 'alice',
      );
    const disconnected = await cp.call('POST', `/labs/${LAB}/peers/disconnect`, { a: 'bob', b: 'alice' });
    expect(disconnected.status, JSON.stringify(disconnected.body)).toBe(200);
    await waitFor(async () => (await bobSees()).active === false, {
      timeoutMs: 20_000,
      what: 'the channel inactive without the peer',
    });
    // asked again, the two are already apart: as asked
    expect((await cp.call('POST', `/labs/${LAB}/peers/disconnect`, { a: 'bob', b: 'alice' })).status).toBe(200);
    expect((await cp.call('POST', `/labs/${LAB}/peers/connect`, { a: 'bob', b: 'alice' })).status).toBe(200);
    await waitFor(async () => (await bobSees()).active === true, {
      timeoutMs: 30_000,
      what: 'the channel active again',
    });
  });

  it('refuses fault commands on unknown services and nodes', async () => {
    const unknown = await cp.call('POST', `/labs/${LAB}/services/nobody/stop`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NO_SUCH_SERVICE');
    const same = await cp.call('POST', `/labs/${LAB}/peers/connect`, { a: 'bob', b: 'bob' });
    expect(same.status).toBe(400);
  });
});
