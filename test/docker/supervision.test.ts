// Supervision on the docker runtime: a docker lab (btcd, the indexer, alice and bob on lnd with a
// channel, the wallet server, the faucet) under the lab's own Supervisor and fault commands, with
// its containers killed from outside through the engine API as a crash would kill them. Liveness
// polling is pushed out to ten minutes, so a death seen within seconds was told by the engine's
// events.
// Its own docker lab, whose containers it kills.
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { payBetween, payInvoice } from '../../control-plane/src/lab/operations.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { macAddressOf } from '../../control-plane/src/runtimes/docker/addresses.js';
import { containerName } from '../../control-plane/src/runtimes/docker/placement.js';
import { Faults } from '../../control-plane/src/supervisor/faults.js';
import { Supervisor } from '../../control-plane/src/supervisor/supervisor.js';
import { waitFor } from '../../lib/wait.js';
import { signInToWalletServer } from '../support/wallet-server-user.js';
import { engine, labLeftovers, startDockerLab, uniqueLab, type DockerLab } from './support.js';

type ServiceEvent = Extract<LabEvent, { type: 'service' }> & { at: number };

describe('supervision of a docker lab', () => {
  const events: ServiceEvent[] = [];
  let docker: Docker;
  let running: DockerLab;
  let lab: LabState;
  let session: LabSession;
  let supervisor: Supervisor;
  let faults: Faults;

  const onEvent = (event: LabEvent) => {
    if (event.type === 'service') events.push({ ...event, at: Date.now() });
  };
  const persist = async () => undefined;
  const containerOf = (service: string) => {
    const handle = lab.services[service].handle;
    if (handle?.runtime !== 'docker') throw new Error(`${service} has no container`);
    return docker.getContainer(handle.containerId);
  };
  const containerRunning = async (service: string) =>
    (await docker.getContainer(containerName(lab.name, service)).inspect()).State.Running;
  const readyAgain = (service: string, restarts: number) =>
    waitFor(async () => lab.services[service].status === 'ready' && lab.services[service].restarts === restarts, {
      timeoutMs: 120_000,
      intervalMs: 200,
      what: `${service} restarted and ready`,
    });

  beforeAll(async () => {
    docker = await engine();
    running = await startDockerLab(
      {
        name: uniqueLab('sup'),
        indexer: { enabled: true },
        nodes: [
          { name: 'alice', kind: 'lnd', funding_sat: 5_000_000 },
          { name: 'bob', kind: 'lnd', funding_sat: 5_000_000 },
        ],
        channels: [{ from: 'alice', to: 'bob', capacity_sat: 1_000_000 }],
        services: { 'wallet-server': { node: 'bob' }, faucet: { node: 'alice' } },
      },
      { onEvent },
    );
    ({ lab, session } = running);
    supervisor = new Supervisor(session, { onEvent, persist, livenessIntervalMs: 600_000 });
    faults = new Faults(supervisor, persist, onEvent);
    supervisor.start();
  });

  afterAll(async () => {
    await supervisor?.stop();
    await running?.stop();
    if (lab) expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  /** The container's address and MAC address on the lab's network. */
  const addressOf = async (service: string) => {
    const { IPAddress, MacAddress } = (await containerOf(service).inspect()).NetworkSettings.Networks[
      `reglab-${lab.name}`
    ];
    return { ip: IPAddress, mac: MacAddress };
  };

  it('reports a container killed through the engine at once, with the kill named, and restarts it in a new container at the same address and MAC address', async () => {
    const before = lab.services['wallet-server'].handle;
    const address = await addressOf('wallet-server');
    expect(address.mac).toBe(macAddressOf(address.ip));
    const killedAt = Date.now();
    await containerOf('wallet-server').kill({ signal: 'SIGKILL' });
    // within the wait, long before the next liveness poll (ten minutes away): told by the engine's events
    const reported = await waitFor(
      async () => events.find((event) => event.service === 'wallet-server' && event.at >= killedAt),
      { timeoutMs: 30_000, intervalMs: 50, what: 'an event about the wallet server' },
    );
    expect(reported.status).toBe('restarting');
    expect(reported.message).toContain('wallet-server stopped running: killed by SIGKILL');
    expect(lab.status).toBe('degraded');

    await readyAgain('wallet-server', 1);
    expect(lab.services['wallet-server'].handle).not.toEqual(before);
    expect(await containerRunning('wallet-server')).toBe(true);
    expect(await addressOf('wallet-server')).toEqual(address);
    const health = await fetch(`http://${session.host.reach('wallet-server', 'http')}/health`);
    expect(health.status).toBe(200);
    await waitFor(async () => lab.status === 'ready', { timeoutMs: 10_000, what: 'the lab ready again' });
  });

  it('answers a kill it was asked for with the crash (restarting), then brings the container back', async () => {
    const before = lab.services['wallet-server'].restarts;
    expect((await faults.act('wallet-server', 'kill')).status).toBe('restarting');
    await readyAgain('wallet-server', before + 1);
    expect(await containerRunning('wallet-server')).toBe(true);
  });

  it('stops a service on purpose and leaves its container stopped', async () => {
    expect((await faults.act('faucet', 'stop')).status).toBe('stopped');
    expect(await containerRunning('faucet')).toBe(false);
    expect(lab.services.faucet).toMatchObject({ status: 'stopped', restarts: 0 });
  });

  it('restarts lnd killed through the engine with its channel: a payment goes through after', async () => {
    await containerOf('alice').kill({ signal: 'SIGKILL' });
    await readyAgain('alice', 1);
    const payment = await payBetween(session, { from: 'alice', to: 'bob', amountSat: 2_000 });
    expect(payment).toMatchObject({ amountSat: 2_000, hops: 1 });
  });

  it("has not restarted the stopped service meanwhile (the engine told of its death and of alice's)", async () => {
    expect(lab.services.faucet).toMatchObject({ status: 'stopped', restarts: 0 });
    expect(await containerRunning('faucet')).toBe(false);
    expect(
      events
        .filter((event) => event.service === 'faucet')
        .map((event) => event.status)
        .at(-1),
    ).toBe('stopped');
  });

  it('starts the stopped service again, which then serves', async () => {
    expect((await faults.act('faucet', 'start')).status).toBe('ready');
    expect(await containerRunning('faucet')).toBe(true);
    const address = await session.node('bob').newAddress();
    const claim = await fetch(`http://${session.host.reach('faucet', 'http')}/api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address }),
    });
    expect(claim.status).toBe(200);
    expect(await claim.json()).toMatchObject({
      address,
      amount_sat: 100_000,
      block_height: await session.chain.getBlockCount(),
    });
    expect(lab.status).toBe('ready');
  });

  it('brings the Postgres and Redis containers, killed right after transfers, back with every answered transfer and the sign-in session', async () => {
    const user = await signInToWalletServer(async () => `http://${session.host.reach('wallet-server', 'http')}`);
    const [from, to] = await Promise.all(
      ['sender', 'receiver'].map(async (name) => (await user('POST', '/wallets', { name })).body.id as string),
    );
    const funding = (await user('POST', '/payments/invoices', { amount_msat: 100_000_000 }, from)).body;
    await payInvoice(session, 'alice', funding.payment_request);
    await waitFor(async () => (await user('GET', `/wallets/${from}`)).body.balance_msat === '100000000', {
      timeoutMs: 20_000,
      what: 'the wallet funded',
    });

    const transfers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        user('POST', '/payments/internal', {
          from_wallet_id: from,
          to_wallet_id: to,
          asset_kind: 'btc',
          amount_msat: 1_000_000 * (i + 1),
        }),
      ),
    );
    await Promise.all([
      containerOf('postgres').kill({ signal: 'SIGKILL' }),
      containerOf('redis').kill({ signal: 'SIGKILL' }),
    ]);
    expect(transfers.map((transfer) => transfer.status)).toEqual(Array(10).fill(200));

    await Promise.all([readyAgain('postgres', 1), readyAgain('redis', 1)]);
    // the same access token: its session is in the restarted Redis
    const balances = await waitFor(
      async () => {
        const answers = await Promise.all([from, to].map((wallet) => user('GET', `/wallets/${wallet}`)));
        return (
          answers.every((answer) => answer.status !== 502) &&
          answers.map((answer) => `${answer.status} ${answer.body.balance_msat}`)
        );
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'the wallet server to answer from the restarted Postgres and Redis' },
    );
    expect(balances).toEqual([`200 ${100_000_000 - 55_000_000}`, '200 55000000']);
  });
});
