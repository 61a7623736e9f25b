// The control plane's API on the default lab, as a user drives it: inspect, mine, fund, pay, the
// lab services wired to each other, a wallet-server user paid from a node, auto-mining, and bad
// input. On the shared default-shaped lab (test/support/shared-lab.ts): nothing here breaks it.
// What a control-plane restart, a service killed meanwhile and the lab's removal do to a lab is in
// api-restarts.test.ts, on a lab of its own.
import { randomInt } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { DEFAULT_LAB_SERVICES, defaultLabYaml } from '../support/control-plane.js';
import { sharedLab, type SharedLab } from '../support/shared-lab.js';
import { newKey, REGTEST_ADDRESS, signNonce } from '../wallet-server/support.js';
import { freshKey } from '../chain-adapter/support.js';

describe('control plane API on the default lab', () => {
  let lab: SharedLab;
  let LAB: string;
  const call = (method: string, path: string, body?: unknown) => lab.call(method, path, body);
  const height = async () => (await call('GET', `/labs/${LAB}`)).body.chain.height as number;

  beforeAll(async () => {
    lab = await sharedLab();
    LAB = lab.name;
  });

  it('inspects services, ports, pubkeys, balances, channels and height', async () => {
    const { body } = await call('GET', `/labs/${LAB}`);
    expect(body.services.map((s: { name: string }) => s.name).sort()).toEqual(DEFAULT_LAB_SERVICES);
    expect(body.services.every((s: { status: string }) => s.status === 'ready')).toBe(true);
    const alice = body.nodes.find((n: { name: string }) => n.name === 'alice');
    expect(alice.pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(alice.channels).toEqual([expect.objectContaining({ partner: 'bob', capacitySat: 5_000_000, active: true })]);
    expect(body.chain.height).toBeGreaterThan(432);
  });

  it('refuses a second up of the same lab', async () => {
    const { status, body } = await call('POST', '/labs', { yaml: defaultLabYaml(LAB) });
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
    const jobs = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/labs/${LAB}/mine`, { blocks: 1 })));
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
    const { body } = await call('POST', `/labs/${LAB}/fund?wait=true`, { node: 'bob', amount_sat: 250_000 });
    expect(body.state).toBe('completed');
    expect(body.result.txid).toMatch(/^[0-9a-f]{64}$/);
  });

  it('pays alice -> carol over bob through the payments queue', async () => {
    const { body } = await call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 2_000,
    });
    expect(body.state).toBe('completed');
    expect(body.result).toMatchObject({ amountSat: 2_000, hops: 2 });
  });

  it("runs the lab services, wired to each other: a faucet claim is mined by the lab's queue and seen by the adapter", async () => {
    const { body: lab } = await call('GET', `/labs/${LAB}`);
    const url = (service: string) => lab.services.find((s: { name: string }) => s.name === service).info.url as string;
    const health = await fetch(`${url('wallet-server')}/health`);
    expect(health.status).toBe(200);
    const { address } = freshKey();
    const before = await height();
    // as a client of its own, which the lab's faucet takes from this machine's X-Forwarded-For: another
    // file's claims on the shared lab may have this machine's IP in the faucet's cool-down
    const client = `198.18.${randomInt(256)}.${randomInt(1, 255)}`;
    const claim = await fetch(`${url('faucet')}api/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
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
    const { body: lab } = await call('GET', `/labs/${LAB}`);
    const base = lab.services.find((s: { name: string }) => s.name === 'wallet-server').info.url as string;
    const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: await response.json() };
    };
    // bob gets outbound liquidity towards alice, the wallet server's node, over their channel: more
    // than the reserve of his side (1% of it), which he cannot spend
    expect(
      (await call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'alice', to: 'bob', amount_sat: 100_000 })).body
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
    const paid = await call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'bob',
      invoice: invoice.body.payment_request,
    });
    expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
    await waitFor(
      async () => (await send('GET', `/wallets/${wallet.id}`, undefined, auth)).body.balance_msat === '21000000',
      { timeoutMs: 20_000, what: 'the wallet to be credited' },
    );
  });

  it('auto-mines a block every N seconds until told to stop', async () => {
    const schedule = async () => (await call('GET', `/labs/${LAB}/auto-mining`)).body;
    expect(await schedule()).toEqual({ lab: LAB, autoMineSeconds: 0 });
    const before = await height();
    expect((await call('PUT', `/labs/${LAB}/auto-mining`, { seconds: 1 })).status).toBe(200);
    expect(await schedule()).toEqual({ lab: LAB, autoMineSeconds: 1 });
    await waitFor(async () => (await height()) >= before + 2, { timeoutMs: 15_000, what: 'two auto-mined blocks' });
    expect((await call('PUT', `/labs/${LAB}/auto-mining`, { seconds: 0 })).body).toEqual({
      lab: LAB,
      autoMineSeconds: 0,
    });
    expect(await schedule()).toEqual({ lab: LAB, autoMineSeconds: 0 });
    // the mining queue runs one job at a time in order: once this one is done, no auto-mined block is left to come
    const last = await call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
    expect(last.body.state).toBe('completed');
    expect(await height()).toBe(last.body.result.height);
    expect((await call('GET', '/labs/nope/auto-mining')).body.error.code).toBe('NO_SUCH_LAB');
  });

  it('answers bad input with 400 and queues nothing', async () => {
    const before = await height();
    const cases = [
      call('POST', `/labs/${LAB}/mine`, { blocks: 0 }),
      call('POST', `/labs/${LAB}/mine`, { blocks: 'two' }),
      call('POST', `/labs/${LAB}/mine`, { blocks: 1, address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx' }),
      call('POST', `/labs/${LAB}/fund`, { node: 'zed', amount_sat: 1000 }),
      call('POST', `/labs/${LAB}/channels`, { from: 'alice', to: 'alice', capacity_sat: 100_000 }),
      call('POST', `/labs/${LAB}/payments`, { from: 'alice', to: 'bob', amount_sat: -1 }),
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
    const { status, body } = await call('POST', `/labs/${LAB}/channels/close?wait=true`, {
      node: 'alice',
      partner: 'carol',
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('NO_SUCH_CHANNEL');
    expect(body.error.message).toMatch(
      /^alice has no channel with carol \(its channels: [0-9a-f]{64}:\d+ \(with \w+\)(, [0-9a-f]{64}:\d+ \(with \w+\))*\)$/,
    );
  });
});
