import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import { isRunning, stopProcessGroup } from '../../control-plane/src/runtimes/process/child.js';
import { isListening } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../wallet-server/support.js';

// the repository's default lab, with its services, renamed so it cannot meet a user's lab
const LAB = readFileSync('lab.yaml', 'utf8').replace(/^name: default$/m, 'name: api');

describe('control plane API on the default lab', () => {
  let home: string;
  let plane: RunningControlPlane;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${plane.url}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  };
  const height = async () => (await call('GET', '/labs/api')).body.chain.height as number;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'reglab-home-'));
    chmodSync(home, 0o755);
    plane = await startControlPlane({ home });
    const created = await call('POST', '/labs', { yaml: LAB });
    expect(created.status).toBe(202);
    await waitFor(
      async () => {
        const { body } = await call('GET', '/labs/api');
        if (body.status === 'failed') throw new Error(body.error);
        return body.status === 'ready';
      },
      { timeoutMs: 120_000, what: 'lab api to be ready', stopOn: () => false },
    );
  });

  afterAll(async () => {
    if (plane) {
      await call('DELETE', '/labs/api').catch(() => undefined);
      await plane.stop();
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('inspects services, ports, pubkeys, balances, channels and height', async () => {
    const { body } = await call('GET', '/labs/api');
    expect(body.services.map((s: { name: string }) => s.name).sort()).toEqual([
      'alice',
      'bob',
      'carol',
      'chain',
      'chain-adapter',
      'faucet',
      'indexer',
      'postgres',
      'redis',
      'wallet-server',
    ]);
    expect(body.services.every((s: { status: string }) => s.status === 'ready')).toBe(true);
    const alice = body.nodes.find((n: { name: string }) => n.name === 'alice');
    expect(alice.pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(alice.channels).toEqual([expect.objectContaining({ partner: 'bob', capacitySat: 5_000_000, active: true })]);
    expect(body.chain.height).toBeGreaterThan(432);
  });

  it('refuses a second up of the same lab', async () => {
    const { status, body } = await call('POST', '/labs', { yaml: LAB });
    expect(status).toBe(409);
    expect(body.error.message).toContain('already up');
  });

  it('rejects a broken lab.yaml with the line of the problem', async () => {
    const { status, body } = await call('POST', '/labs', {
      yaml: 'name: other\nnodes:\n  - name: a\nchannels:\n  - from: a\n    to: b\n    capacity_sat: 100000\n',
      file: 'other.yaml',
    });
    expect(status).toBe(400);
    expect(body.error.problems[0]).toMatchObject({ file: 'other.yaml', line: 6, path: 'channels[0].to' });
  });

  it('mines exactly ten blocks for ten concurrent requests of one', async () => {
    const before = await height();
    const jobs = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/labs/api/mine', { blocks: 1 })));
    expect(jobs.every((job) => job.status === 202)).toBe(true);
    for (const job of jobs) {
      await waitFor(async () => (await call('GET', `/jobs/${job.body.job}`)).body.state === 'completed', {
        timeoutMs: 30_000,
        what: 'mining job',
      });
    }
    expect(await height()).toBe(before + 10);
  });

  it('funds a node and records the result on the job', async () => {
    const { body } = await call('POST', '/labs/api/fund?wait=true', { node: 'bob', amount_sat: 250_000 });
    expect(body.state).toBe('completed');
    expect(body.result.txid).toMatch(/^[0-9a-f]{64}$/);
  });

  it('pays alice -> carol over bob through the payments queue', async () => {
    const { body } = await call('POST', '/labs/api/payments?wait=true', {
      from: 'alice',
      to: 'carol',
      amount_sat: 2_000,
    });
    expect(body.state).toBe('completed');
    expect(body.result).toMatchObject({ amountSat: 2_000, hops: 2 });
  });

  it("runs the lab services, wired to each other: a faucet claim is mined by the lab's queue and seen by the adapter", async () => {
    const { body: lab } = await call('GET', '/labs/api');
    const url = (service: string) => lab.services.find((s: { name: string }) => s.name === service).info.url as string;
    const health = await fetch(`${url('wallet-server')}/health`);
    expect(health.status).toBe(200);
    const address = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
    const before = await height();
    const claim = await fetch(`${url('faucet')}api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address }),
    });
    const claimed = await claim.json();
    expect(claim.status, JSON.stringify(claimed)).toBe(200);
    expect(claimed.block_height).toBe(before + 1);
    const utxos = await waitFor(
      async () => {
        const found = await (await fetch(`${url('chain-adapter')}/address/${address}/utxo`)).json();
        // the indexer follows the chain by polling: the block reaches it a moment after the claim's answer
        return found.length > 0 && found[0].status.confirmed ? found : undefined;
      },
      { timeoutMs: 10_000, what: 'the claim confirmed in the adapter' },
    );
    expect(utxos).toEqual([
      expect.objectContaining({
        txid: claimed.txid,
        value: 100_000,
        status: expect.objectContaining({ confirmed: true, block_height: before + 1 }),
      }),
    ]);
  });

  it("lets a user sign in to the lab's wallet server with a real key and receive a payment from bob", async () => {
    const { body: lab } = await call('GET', '/labs/api');
    const base = lab.services.find((s: { name: string }) => s.name === 'wallet-server').info.url as string;
    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: await response.json() };
    };
    // bob pays from a channel of his own to alice, the wallet server's node
    expect(
      (await call('POST', '/labs/api/channels?wait=true', { from: 'bob', to: 'alice', capacity_sat: 500_000 })).body
        .state,
    ).toBe('completed');
    const key = newKey();
    expect((await send('POST', '/auth/enroll', { pubkey: key.pubkey, bitcoin_address: REGTEST_ADDRESS })).status).toBe(
      200,
    );
    const { body: challenge } = await send('GET', `/auth/challenge?pubkey=${key.pubkey}`);
    const verified = await send('POST', '/auth/verify', {
      pubkey: key.pubkey,
      nonce: challenge.nonce,
      signature: await signNonce(key.secretKey, challenge.nonce),
    });
    expect(verified.status).toBe(200);
    const auth = { authorization: `Bearer ${verified.body.access_token}` };
    const wallet = (await send('POST', '/wallets', { name: 'workshop' }, auth)).body;
    const invoice = await send(
      'POST',
      '/payments/invoices',
      { amount_msat: 21_000_000 },
      { ...auth, 'x-service-wallet-key': wallet.id },
    );
    expect(invoice.status).toBe(200);
    await plane.manager.session('api').lightning('bob').pay(invoice.body.payment_request);
    await waitFor(
      async () => (await send('GET', `/wallets/${wallet.id}`, undefined, auth)).body.balance_msat === '21000000',
      { timeoutMs: 20_000, what: 'the wallet to be credited' },
    );
  });

  it('auto-mines a block every N seconds until told to stop', async () => {
    const schedule = async () => (await call('GET', '/labs/api/auto-mining')).body;
    expect(await schedule()).toEqual({ lab: 'api', autoMineSeconds: 0 });
    const before = await height();
    expect((await call('PUT', '/labs/api/auto-mining', { seconds: 1 })).status).toBe(200);
    expect(await schedule()).toEqual({ lab: 'api', autoMineSeconds: 1 });
    await waitFor(async () => (await height()) >= before + 2, { timeoutMs: 15_000, what: 'two auto-mined blocks' });
    expect((await call('PUT', '/labs/api/auto-mining', { seconds: 0 })).body).toEqual({
      lab: 'api',
      autoMineSeconds: 0,
    });
    expect(await schedule()).toEqual({ lab: 'api', autoMineSeconds: 0 });
    // the mining queue runs one job at a time in order: once this one is done, no auto-mined block is left to come
    const last = await call('POST', '/labs/api/mine?wait=true', { blocks: 1 });
    expect(last.body.state).toBe('completed');
    expect(await height()).toBe(last.body.result.height);
    expect((await call('GET', '/labs/nope/auto-mining')).body.error.code).toBe('NO_SUCH_LAB');
  });

  it('answers bad input with 400 and queues nothing', async () => {
    const before = await height();
    const cases = [
      call('POST', '/labs/api/mine', { blocks: 0 }),
      call('POST', '/labs/api/mine', { blocks: 'two' }),
      call('POST', '/labs/api/mine', { blocks: 1, address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }),
      call('POST', '/labs/api/fund', { node: 'zed', amount_sat: 1000 }),
      call('POST', '/labs/api/channels', { from: 'alice', to: 'alice', capacity_sat: 100_000 }),
      call('POST', '/labs/api/payments', { from: 'alice', to: 'bob', amount_sat: -1 }),
    ];
    for (const { status, body } of await Promise.all(cases)) {
      expect(status).toBe(400);
      expect(body.error.message).toBeTruthy();
    }
    expect(await height()).toBe(before);
    expect((await call('GET', '/labs/nope')).status).toBe(404);
  });

  it('refuses to close a channel the node does not have before anything is queued, listing its channels', async () => {
    // alice and carol share no channel: the node is asked before the job is queued
    const { status, body } = await call('POST', '/labs/api/channels/close?wait=true', {
      node: 'alice',
      partner: 'carol',
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('NO_SUCH_CHANNEL');
    expect(body.error.message).toMatch(
      /^alice has no channel with carol \(its channels: [0-9a-f]{64}:\d+ \(with bob\)(, [0-9a-f]{64}:\d+ \(with bob\))*\)$/,
    );
  });

  it('re-attaches to the running lab after a control-plane restart', async () => {
    await plane.stop();
    plane = await startControlPlane({ home });
    const { body } = await call('GET', '/labs/api');
    expect(body.status).toBe('ready');
    expect(body.nodes.find((n: { name: string }) => n.name === 'bob').channels[0].active).toBe(true);
    const mined = await call('POST', '/labs/api/mine?wait=true', { blocks: 2 });
    expect(mined.body.state).toBe('completed');
  });

  it('shows a lab whose service died while the control plane was down as degraded, then restarts it with its channels', async () => {
    await plane.stop();
    const carol = plane.manager.get('api').services.carol;
    if (carol.handle?.runtime !== 'process') throw new Error('expected a process lab');
    await stopProcessGroup(carol.handle.pid, 10_000, 'SIGKILL');
    plane = await startControlPlane({ home });
    const { body } = await call('GET', '/labs/api');
    expect(body.status).toBe('degraded');
    expect(body.services.find((s: { name: string }) => s.name === 'carol')).toMatchObject({
      status: expect.stringMatching(/^(failed|restarting)$/),
      error: expect.stringContaining('no longer running'),
    });
    const paid = await waitFor(
      async () => {
        const lab = (await call('GET', '/labs/api')).body;
        if (lab.status !== 'ready') return false;
        const payment = await call('POST', '/labs/api/payments?wait=true', {
          from: 'alice',
          to: 'carol',
          amount_sat: 1_000,
        });
        return payment.body.state === 'completed' && payment.body;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'carol back with its channel' },
    );
    expect(paid.result.hops).toBe(2);
    expect(
      (await call('GET', '/labs/api')).body.services.find((s: { name: string }) => s.name === 'carol').restarts,
    ).toBe(1);
  });

  it('deletes the lab leaving no process and no port', async () => {
    const { body } = await call('GET', '/labs/api');
    const ports = body.services.flatMap((s: { ports: Record<string, number> }) => Object.values(s.ports));
    const { manager } = plane;
    const pids = Object.values(manager.get('api').services).map((s) =>
      s.handle?.runtime === 'process' ? s.handle.pid : 0,
    );
    expect((await call('DELETE', '/labs/api')).status).toBe(200);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    for (const port of ports) expect(await isListening(port)).toBe(false);
    expect((await call('GET', '/labs')).body.labs).toEqual([]);
  });
});
