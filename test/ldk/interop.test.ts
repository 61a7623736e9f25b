// reglab-ldk against real lnd nodes on a real btcd regtest, with the lab's Electrum indexer as its
// chain source: channels both ways, payments both ways, forwarding, keysend, hold invoices,
// BOLT12 between two LDK nodes, restart, and cooperative and force closes from either side.
// Its own lab: the LDK daemons it checks are started by the test, and open and close channels with
// the lnd nodes.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addPeer,
  closeChannel,
  createInvoice,
  getChainBalance,
  getChannels,
  decodePaymentRequest,
  getClosedChannels,
  getInvoice,
  getPendingChannels,
  getRouteToDestination,
  getWalletInfo,
  openChannel,
  pay,
  payViaPaymentDetails,
} from 'ln-service';
import { fund, mineBlocks } from '../../control-plane/src/lab/operations.js';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import type {
  LdkBalances as Balances,
  LdkChannel,
  LdkGraphChannel as GraphChannel,
  LdkPayment as Payment,
} from '../../lib/lightning/ldk/api.js';
import { ldkEvents, startLdk, stopAll, waitEvent, type LdkAnswer, type LdkNode } from './support.js';

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

describe('reglab-ldk with lnd nodes, over the lab indexer (Electrum)', () => {
  let regtest: Regtest;
  let ldk: LdkNode;
  let ldk2: LdkNode;
  let alicePubkey: string;
  let bobPubkey: string;
  let ldkStartedAt: number;
  const lnd = (name: 'alice' | 'bob') => regtest.lnd(name);
  const ldkNodes = () => [ldk, ldk2].filter(Boolean);
  const syncAll = () => Promise.all(ldkNodes().map((node) => node.post('/v1/sync')));
  /** Mines `blocks` blocks and has every LDK node sync (the indexer follows btcd within ~100 ms). */
  const mine = async (blocks: number) => {
    const { height } = await mineBlocks(regtest.session, blocks);
    await waitFor(
      async () => {
        const infos = await Promise.all(ldkNodes().map((node) => node.post<{ block: { height: number } }>('/v1/sync')));
        return infos.every((info) => info.block.height >= height);
      },
      { timeoutMs: 60_000, what: `LDK nodes at height ${height}` },
    );
    return height;
  };
  /** LDK broadcasts through a queue: its transactions reach the mempool a moment after the API answers. */
  const waitInMempool = (txid: string) =>
    waitFor(async () => (await regtest.chain.getRawMempool()).includes(txid), {
      timeoutMs: 30_000,
      what: `transaction ${txid} in the mempool`,
    });
  const channels = async (node: LdkNode) => (await node.get<{ channels: LdkChannel[] }>('/v1/channels')).channels;
  const channelByFunding = async (node: LdkNode, txid: string) =>
    (await channels(node)).find((channel) => channel.funding_txo?.txid === txid);
  const balances = (node: LdkNode) => node.get<Balances>('/v1/balances');
  const lndChainBalance = async (name: 'alice' | 'bob') => (await getChainBalance({ lnd: lnd(name) })).chain_balance;
  /**
   * The channel funded by `txid` among the lnd node's closed channels. Its wallet counts the closing
   * output as the block comes, and it lists the channel once its contract court has handled that
   * block: one may come before the other.
   */
  const closedOn = (name: 'alice' | 'bob', txid: string) =>
    waitFor(async () => (await getClosedChannels({ lnd: lnd(name) })).channels.find((c) => c.transaction_id === txid), {
      timeoutMs: 30_000,
      what: `the channel funded by ${txid} among ${name}'s closed channels`,
    });
  /** Waits until both ends see the channel usable (LDK) and active (lnd). */
  const waitChannelUsable = async (node: LdkNode, lndName: 'alice' | 'bob', txid: string) => {
    await waitFor(
      async () => {
        await node.post('/v1/sync');
        const ours = await channelByFunding(node, txid);
        const theirs = (await getChannels({ lnd: lnd(lndName), is_active: true })).channels.find(
          (channel) => channel.transaction_id === txid,
        );
        return ours?.is_usable && theirs !== undefined && ours;
      },
      { timeoutMs: 60_000, what: `channel ${txid} usable on ${node.name} and active on ${lndName}` },
    );
  };
  const openFromLnd = async (from: 'alice' | 'bob', capacity: number, give = 0) => {
    await addPeer({ lnd: lnd(from), public_key: ldk.pubkey, socket: ldk.p2p });
    const { transaction_id } = await openChannel({
      lnd: lnd(from),
      partner_public_key: ldk.pubkey,
      partner_socket: ldk.p2p,
      local_tokens: capacity,
      give_tokens: give || undefined,
    });
    await waitFor(async () => channelByFunding(ldk, transaction_id), {
      timeoutMs: 30_000,
      what: 'the channel on the LDK side',
    });
    await mine(6);
    await waitChannelUsable(ldk, from, transaction_id);
    // lnd sends over a new channel once its link is eligible, a moment after it shows active.
    await waitFor(
      async () => (await getRouteToDestination({ lnd: lnd(from), destination: ldk.pubkey, tokens: 1_000 })).route,
      {
        timeoutMs: 30_000,
        what: `${from} to find a route to ldk over the new channel`,
      },
    );
    return transaction_id;
  };
  const openToLnd = async (to: 'alice' | 'bob', capacity: number, pushMsat?: number) => {
    const pubkey = to === 'alice' ? alicePubkey : bobPubkey;
    const opened = await ldk.post<{ user_channel_id: string; funding_txid: string; funding_vout: number }>(
      '/v1/channels/open',
      {
        pubkey,
        address: regtest.address(to, 'p2p'),
        capacity_sat: capacity,
        push_msat: pushMsat,
      },
    );
    expect(opened.funding_txid).toMatch(/^[0-9a-f]{64}$/);
    await waitInMempool(opened.funding_txid);
    await mine(6);
    await waitChannelUsable(ldk, to, opened.funding_txid);
    return opened;
  };

  beforeAll(async () => {
    regtest = await startRegtest({ lnd: ['alice', 'bob'], indexer: true });
    alicePubkey = (await getWalletInfo({ lnd: lnd('alice') })).public_key;
    bobPubkey = (await getWalletInfo({ lnd: lnd('bob') })).public_key;
    ldkStartedAt = Date.now();
    ldk = await startLdk({ name: 'ldk', chainSource: `electrum=tcp://${regtest.address('indexer', 'electrum')}` });
  });
  afterAll(async () => {
    await stopAll();
    await regtest?.stop();
  });

  // how fast it is ready is bench:lab-up's figure (docs/benchmarks.md), not a test's
  it('is ready: synced, listening, answering its API', async () => {
    const info = await ldk.get('/v1/info');
    expect(info).toMatchObject({
      node_id: expect.stringMatching(/^0[23][0-9a-f]{64}$/),
      alias: 'ldk',
      network: 'regtest',
      listening_addresses: [ldk.p2p],
      chain_source: { kind: 'electrum' },
      synced: true,
      block: { height: await regtest.chain.getBlockCount(), hash: await regtest.chain.getBestBlockHash() },
    });
    // a sync of this run's daemon (in whole seconds), not a time left from an earlier one
    expect(info.latest_onchain_wallet_sync_at).toBeGreaterThanOrEqual(Math.floor(ldkStartedAt / 1000));
    expect(info.latest_onchain_wallet_sync_at).toBeLessThanOrEqual(Date.now() / 1000);
    expect(await ldk.get('/health')).toMatchObject({ status: 'ok' });
  });

  it('takes funds from the lab wallet and shows them after POST /v1/sync', async () => {
    const { address } = await ldk.post<{ address: string }>('/v1/address');
    expect(address).toMatch(/^bcrt1/);
    await fund(regtest.session, { address, amountSat: 5_000_000n });
    const funded = await waitFor(
      async () => {
        await ldk.post('/v1/sync');
        const current = await balances(ldk);
        return current.onchain.spendable_sat === 5_000_000 && current;
      },
      { timeoutMs: 30_000, what: 'the funding in the LDK wallet' },
    );
    expect(funded.onchain.spendable_sat).toBe(5_000_000);
    const onchain = (await ldk.get<{ payments: Payment[] }>('/v1/payments')).payments.filter(
      (payment) => payment.kind === 'onchain',
    );
    // LDK calls an on-chain payment succeeded after 6 confirmations; it is confirmed at once.
    expect(onchain).toContainEqual(
      expect.objectContaining({ direction: 'inbound', confirmed: true, amount_msat: 5_000_000_000 }),
    );
  });

  it("answers a sync the indexer held past ldk-node's time with the synced info, having tried it once more", async () => {
    const handle = regtest.lab.services.indexer?.handle;
    if (handle?.runtime !== 'process') throw new Error('the indexer runs no process');
    const retried = (log: string) => log.split('trying once more').length - 1;
    const before = retried(ldk.log());
    process.kill(handle.pid, 'SIGSTOP');
    let answer: Promise<LdkAnswer<{ synced: boolean; block: { height: number } }>>;
    try {
      answer = ldk.call('POST', '/v1/sync');
      // the first try ends in ldk-node's time-out while the indexer is frozen: let it answer the second
      await waitFor(async () => retried(ldk.log()) > before, { timeoutMs: 60_000, what: "the daemon's second try" });
    } finally {
      process.kill(handle.pid, 'SIGCONT');
    }
    const { status, body } = await answer;
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ synced: true, block: { height: await regtest.chain.getBlockCount() } });
  });

  it('answers bad input with the error shape and the right status', async () => {
    const document = await ldk.get<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(
      '/openapi.json',
    );
    const operationOf = (method: string, path: string) => {
      const bare = path.split('?')[0]!;
      const templates = Object.keys(document.paths).filter((t) =>
        new RegExp(`^${t.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(bare),
      );
      return templates.map((t) => document.paths[t]![method.toLowerCase()]).find(Boolean);
    };
    let checked = 0;
    const expectError = async (method: string, path: string, body: unknown, status: number, code: string) => {
      const answer = await ldk.call(method, path, body);
      expect({ path, status: answer.status, code: answer.body?.error?.code }).toEqual({ path, status, code });
      expect(answer.body.error.message).toEqual(expect.any(String));
      expect(Object.keys(answer.body)).toEqual(['error']);
      // The OpenAPI document declares the status for the route (unknown routes and methods have none).
      const operation = operationOf(method, path);
      if (operation) checked++;
      if (operation)
        expect({ route: `${method} ${path}`, declared: Object.keys(operation.responses) }).toEqual({
          route: `${method} ${path}`,
          declared: expect.arrayContaining([String(status)]),
        });
    };
    await expectError('POST', '/v1/peers/connect', '{"pubkey": ', 400, 'INVALID_JSON');
    await expectError('POST', '/v1/peers/connect', '[1,2]', 400, 'INVALID_JSON');
    await expectError('POST', '/v1/peers/connect', { pubkey: 'zz', address: '127.0.0.1:1' }, 400, 'INVALID_PUBKEY');
    await expectError('POST', '/v1/peers/connect', { pubkey: alicePubkey }, 400, 'INVALID_REQUEST');
    await expectError('POST', '/v1/peers/connect', { pubkey: alicePubkey, address: 'nowhere' }, 400, 'INVALID_ADDRESS');
    await expectError(
      'POST',
      '/v1/peers/connect',
      { pubkey: alicePubkey, address: '127.0.0.1:9', surprise: 1 },
      400,
      'INVALID_REQUEST',
    );
    await expectError('POST', '/v1/payments/bolt11', { invoice: 'lnbcrt1notaninvoice' }, 400, 'INVALID_INVOICE');
    await expectError('POST', '/v1/payments/bolt11', { invoice: 42 }, 400, 'INVALID_REQUEST');
    await expectError('POST', '/v1/payments/bolt12', { offer: 'lno1nope' }, 400, 'INVALID_OFFER');
    await expectError('POST', '/v1/payments/keysend', { pubkey: alicePubkey, amount_msat: 0 }, 400, 'INVALID_AMOUNT');
    await expectError('POST', '/v1/payments/keysend', { pubkey: alicePubkey, amount_msat: -5 }, 400, 'INVALID_REQUEST');
    await expectError(
      'POST',
      '/v1/invoices',
      { amount_msat: 1000, description: 'x'.repeat(700) },
      400,
      'INVALID_DESCRIPTION',
    );
    await expectError('POST', '/v1/invoices', { payment_hash: 'abc' }, 400, 'INVALID_HASH');
    await expectError(
      'POST',
      `/v1/invoices/${'ab'.repeat(32)}/settle`,
      { preimage: 'cd'.repeat(32) },
      400,
      'PREIMAGE_MISMATCH',
    );
    const preimage = randomBytes(32).toString('hex');
    await expectError('POST', `/v1/invoices/${sha256(preimage)}/settle`, { preimage }, 404, 'INVOICE_NOT_FOUND');
    await expectError('POST', `/v1/invoices/${'ab'.repeat(32)}/cancel`, {}, 404, 'INVOICE_NOT_FOUND');
    await expectError('GET', `/v1/payments/${'ab'.repeat(32)}`, undefined, 404, 'PAYMENT_NOT_FOUND');
    await expectError('GET', '/v1/payments/nothex', undefined, 400, 'INVALID_HASH');
    await expectError('POST', '/v1/channels/close', { user_channel_id: '12345' }, 404, 'CHANNEL_NOT_FOUND');
    await expectError('POST', '/v1/channels/close', { user_channel_id: 'twelve' }, 400, 'INVALID_CHANNEL_ID');
    await expectError('POST', '/v1/channels/close', {}, 400, 'INVALID_REQUEST');
    await expectError(
      'POST',
      '/v1/channels/open',
      { pubkey: alicePubkey, address: regtest.address('alice', 'p2p'), capacity_sat: 50_000_000 },
      409,
      'INSUFFICIENT_FUNDS',
    );
    await expectError('POST', '/v1/peers/disconnect', { pubkey: bobPubkey }, 404, 'PEER_NOT_FOUND');
    await expectError('GET', '/v1/nothing', undefined, 404, 'NOT_FOUND');
    await expectError('DELETE', '/v1/info', undefined, 405, 'METHOD_NOT_ALLOWED');
    await expectError('GET', '/v1/channels/open', undefined, 405, 'METHOD_NOT_ALLOWED');
    await expectError('GET', '/v1/events?since=x', undefined, 400, 'INVALID_QUERY');
    await expectError('POST', '/v1/invoices', '{"amount_msat": 18446744073709551615}', 400, 'INVALID_AMOUNT');
    await expectError('POST', '/v1/invoices', '{"amount_msat": 18446744073709551616}', 400, 'INVALID_REQUEST');
    await expectError(
      'POST',
      '/v1/channels/open',
      { pubkey: alicePubkey, address: '127.0.0.1:9', capacity_sat: 100_000, push_msat: 100_000_000 },
      400,
      'INVALID_PUSH',
    );
    await expectError(
      'POST',
      '/v1/channels/open',
      `{"pubkey":"${alicePubkey}","address":"127.0.0.1:9","capacity_sat":18446744073709551615}`,
      400,
      'INVALID_CAPACITY',
    );
    await expectError('GET', '/v1/payments/%ff%fe', undefined, 400, 'INVALID_PATH');
    await expectError('POST', '/v1/sync', '{"now": true}', 400, 'INVALID_REQUEST');
    expect(checked).toBeGreaterThan(25);
    const far = await ldk.call('POST', '/v1/invoices', {
      amount_msat: 1_000,
      description: 'ünïcødé ⚡',
      expiry_secs: 4_294_967_295,
    });
    expect(far.status).toBe(200);
    // Still alive and well after all that.
    expect((await ldk.call('GET', '/health')).status).toBe(200);
  });

  it('serves an OpenAPI document that declares every route it answers', async () => {
    const document = await ldk.get<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>('/openapi.json');
    expect(document.openapi).toMatch(/^3\./);
    const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        'GET /health',
        'GET /openapi.json',
        'GET /v1/info',
        'POST /v1/sync',
        'POST /v1/address',
        'GET /v1/balances',
        'GET /v1/peers',
        'POST /v1/peers/connect',
        'POST /v1/peers/disconnect',
        'GET /v1/channels',
        'POST /v1/channels/open',
        'POST /v1/channels/close',
        'GET /v1/graph/channels',
        'POST /v1/invoices',
        'POST /v1/invoices/{payment_hash}/settle',
        'POST /v1/invoices/{payment_hash}/cancel',
        'POST /v1/offers',
        'GET /v1/payments',
        'GET /v1/payments/{id}',
        'POST /v1/payments/bolt11',
        'POST /v1/payments/bolt12',
        'POST /v1/payments/keysend',
        'GET /v1/events',
      ].sort(),
    );
    // Each route declares its success and its error answers.
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect({
          route: `${method} ${path}`,
          has2xx: Object.keys(operation.responses).some((status) => status.startsWith('2')),
        }).toEqual({ route: `${method} ${path}`, has2xx: true });
      }
    }
  });

  let aliceChannel: string;
  it('accepts a channel from lnd (lnd → ldk)', async () => {
    const since = (await ldkEvents(ldk)).length;
    aliceChannel = await openFromLnd('alice', 1_000_000);
    const channel = (await channelByFunding(ldk, aliceChannel))!;
    expect(channel).toMatchObject({
      counterparty_node_id: alicePubkey,
      capacity_sat: 1_000_000,
      is_outbound: false,
      is_channel_ready: true,
      is_usable: true,
    });
    expect(channel.confirmations).toBeGreaterThanOrEqual(6);
    await waitEvent(ldk, 'channel_pending', (event) => event.funding_txo.txid === aliceChannel, { since });
    await waitEvent(ldk, 'channel_ready', (event) => event.user_channel_id === channel.user_channel_id, { since });
  });

  let bobChannel: { user_channel_id: string; funding_txid: string };
  it('opens a public channel to lnd (ldk → lnd)', async () => {
    bobChannel = await openToLnd('bob', 1_000_000);
    const channel = (await channelByFunding(ldk, bobChannel.funding_txid))!;
    expect(channel).toMatchObject({
      user_channel_id: bobChannel.user_channel_id,
      counterparty_node_id: bobPubkey,
      is_outbound: true,
      is_announced: true,
      capacity_sat: 1_000_000,
    });
    const theirs = (await getChannels({ lnd: lnd('bob') })).channels.find(
      (c) => c.transaction_id === bobChannel.funding_txid,
    )!;
    expect(theirs).toMatchObject({ partner_public_key: ldk.pubkey, is_private: false, capacity: 1_000_000 });
    const peers = (await ldk.get<{ peers: { node_id: string; is_connected: boolean }[] }>('/v1/peers')).peers;
    expect(peers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ node_id: bobPubkey, is_connected: true }),
        expect.objectContaining({ node_id: alicePubkey, is_connected: true }),
      ]),
    );
  });

  it('receives a BOLT11 payment from lnd (lnd → ldk)', async () => {
    const invoice = await ldk.post<{ invoice: string; payment_hash: string; hold: boolean }>('/v1/invoices', {
      amount_msat: 50_000_000,
      description: 'from alice',
      expiry_secs: 600,
    });
    expect(invoice).toMatchObject({ invoice: expect.stringMatching(/^lnbcrt/), hold: false });
    const paid = await pay({ lnd: lnd('alice'), request: invoice.invoice });
    expect(sha256(paid.secret)).toBe(invoice.payment_hash);
    const payment = await waitFor(
      async () => {
        const current = await ldk.get<Payment>(`/v1/payments/${invoice.payment_hash}`);
        return current.status === 'succeeded' && current;
      },
      { timeoutMs: 30_000, what: 'the payment received on LDK' },
    );
    expect(payment).toMatchObject({
      kind: 'bolt11',
      direction: 'inbound',
      amount_msat: 50_000_000,
      preimage: paid.secret,
    });
    await waitEvent(
      ldk,
      'payment_received',
      (event) => event.payment_hash === invoice.payment_hash && event.amount_msat === 50_000_000,
    );
  });

  it('commits a description hash instead of a description (LNURL-pay)', async () => {
    const metadataHash = sha256(Buffer.from('[["text/plain","to ldk"]]').toString('hex'));
    const invoice = await ldk.post<{ invoice: string }>('/v1/invoices', {
      amount_msat: 1_000_000,
      description_hash: metadataHash,
    });
    expect((await decodePaymentRequest({ lnd: lnd('alice'), request: invoice.invoice })).description_hash).toBe(
      metadataHash,
    );
    const both = await ldk.call('POST', '/v1/invoices', {
      amount_msat: 1_000,
      description: 'text',
      description_hash: metadataHash,
    });
    expect({ status: both.status, code: both.body.error.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    const malformed = await ldk.call('POST', '/v1/invoices', { amount_msat: 1_000, description_hash: 'abc' });
    expect({ status: malformed.status, code: malformed.body.error.code }).toEqual({
      status: 400,
      code: 'INVALID_HASH',
    });
  });

  it('cancels an invoice before it is paid: the payment is refused and nothing is received; a paid one cannot be canceled', async () => {
    const invoice = await ldk.post<{ invoice: string; payment_hash: string }>('/v1/invoices', {
      amount_msat: 9_000_000,
      description: 'canceled',
    });
    const canceled = await ldk.call<Payment>('POST', `/v1/invoices/${invoice.payment_hash}/cancel`, {});
    expect({ status: canceled.status, payment: canceled.body.status }).toEqual({ status: 200, payment: 'failed' });
    const before = (await balances(ldk)).lightning.total_sat;
    // refused by the LDK node as an invoice it no longer takes, not lost on the way (a route, a timeout)
    await expect(pay({ lnd: lnd('alice'), request: invoice.invoice })).rejects.toEqual([
      503,
      'PaymentRejectedByDestination',
    ]);
    expect(await ldk.get<Payment>(`/v1/payments/${invoice.payment_hash}`)).toMatchObject({ status: 'failed' });
    expect((await balances(ldk)).lightning.total_sat).toBe(before);

    const paidInvoice = await ldk.post<{ invoice: string; payment_hash: string }>('/v1/invoices', {
      amount_msat: 2_000_000,
    });
    await pay({ lnd: lnd('alice'), request: paidInvoice.invoice });
    const late = await ldk.call('POST', `/v1/invoices/${paidInvoice.payment_hash}/cancel`, {});
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 409, code: 'ALREADY_SETTLED' });
  });

  it('pays lnd nodes (ldk → lnd), directly on each channel', async () => {
    const toBob = await createInvoice({ lnd: lnd('bob'), tokens: 20_000, description: 'to bob' });
    const answer = await ldk.call<Payment>('POST', '/v1/payments/bolt11', { invoice: toBob.request });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      kind: 'bolt11',
      direction: 'outbound',
      status: 'succeeded',
      amount_msat: 20_000_000,
      payment_hash: toBob.id,
      preimage: toBob.secret,
    });
    expect((await getInvoice({ lnd: lnd('bob'), id: toBob.id })).is_confirmed).toBe(true);

    const toAlice = await createInvoice({ lnd: lnd('alice'), tokens: 10_000 });
    const paid = await ldk.post<Payment>('/v1/payments/bolt11', { invoice: toAlice.request });
    expect(paid).toMatchObject({ status: 'succeeded', amount_msat: 10_000_000 });
    expect((await getInvoice({ lnd: lnd('alice'), id: toAlice.id })).is_confirmed).toBe(true);

    // An invoice without an amount takes amount_msat; paying an invoice twice is a conflict.
    const open = await createInvoice({ lnd: lnd('bob') });
    expect((await ldk.call('POST', '/v1/payments/bolt11', { invoice: open.request })).body.error.code).toBe(
      'AMOUNT_REQUIRED',
    );
    expect(
      await ldk.post<Payment>('/v1/payments/bolt11', { invoice: open.request, amount_msat: 1_234_000 }),
    ).toMatchObject({ status: 'succeeded', amount_msat: 1_234_000 });
    const again = await ldk.call('POST', '/v1/payments/bolt11', { invoice: toBob.request });
    expect({ status: again.status, code: again.body.error.code }).toEqual({ status: 409, code: 'DUPLICATE_PAYMENT' });
  });

  it('forwards a payment from one lnd node to another (lnd → ldk → lnd)', async () => {
    // bob's side of the ldk-bob channel is public after 6 confirmations; alice learns it by gossip.
    await waitFor(
      async () => (await getRouteToDestination({ lnd: lnd('alice'), destination: bobPubkey, tokens: 15_000 })).route,
      {
        timeoutMs: 60_000,
        what: 'alice to find a route to bob through ldk',
      },
    );
    const since = (await ldkEvents(ldk)).length;
    const invoice = await createInvoice({ lnd: lnd('bob'), tokens: 15_000, description: 'via ldk' });
    const paid = await pay({ lnd: lnd('alice'), request: invoice.request });
    const aliceLdk = (await getChannels({ lnd: lnd('alice') })).channels.find(
      (c) => c.transaction_id === aliceChannel,
    )!.id;
    const ldkBob = (await getChannels({ lnd: lnd('bob') })).channels.find(
      (c) => c.transaction_id === bobChannel.funding_txid,
    )!.id;
    expect(paid.hops.map((hop) => hop.channel)).toEqual([aliceLdk, ldkBob]);
    expect((await getInvoice({ lnd: lnd('bob'), id: invoice.id })).is_confirmed).toBe(true);
    const forwarded = await waitEvent(ldk, 'payment_forwarded', () => true, { since });
    expect(forwarded).toMatchObject({
      prev_node_id: alicePubkey,
      next_node_id: bobPubkey,
      outbound_amount_forwarded_msat: 15_000_000,
    });
    expect(forwarded.fee_earned_msat).toBe(paid.fee * 1000);
  });

  it("knows its announced channels in its graph, with both directions' policies, by the ids lnd gives them", async () => {
    const own = await channels(ldk);
    const graph = await waitFor(
      async () => {
        const known = (await ldk.get<{ channels: GraphChannel[] }>('/v1/graph/channels')).channels.filter(
          (channel) => channel.one_to_two && channel.two_to_one,
        );
        return (
          own.every((channel) => known.some((entry) => entry.short_channel_id === channel.short_channel_id)) && known
        );
      },
      { timeoutMs: 60_000, what: "ldk's channels in its graph with both policies" },
    );
    const lndId = (await getChannels({ lnd: lnd('bob') })).channels.find(
      (channel) => channel.transaction_id === bobChannel.funding_txid,
    )!.id;
    const toBob = graph.find((channel) => channel.short_channel_id === lndId)!;
    expect([toBob.node_one, toBob.node_two].sort()).toEqual([ldk.pubkey, bobPubkey].sort());
    expect(toBob.one_to_two).toMatchObject({ enabled: true, cltv_expiry_delta: expect.any(Number) });
  });

  it('receives a keysend payment from lnd', async () => {
    const preimage = randomBytes(32).toString('hex');
    const id = sha256(preimage);
    await payViaPaymentDetails({
      lnd: lnd('alice'),
      destination: ldk.pubkey,
      id,
      tokens: 7_000,
      messages: [{ type: '5482373484', value: preimage }],
    });
    const payment = await waitFor(
      async () => {
        const answer = await ldk.call<Payment>('GET', `/v1/payments/${id}`);
        return answer.status === 200 && answer.body.status === 'succeeded' && answer.body;
      },
      { timeoutMs: 30_000, what: 'the keysend payment on LDK' },
    );
    expect(payment).toMatchObject({ kind: 'keysend', direction: 'inbound', amount_msat: 7_000_000, preimage });
  });

  it('holds an invoice until it is settled with the preimage, and cancels another', async () => {
    const preimage = randomBytes(32).toString('hex');
    const hash = sha256(preimage);
    const hold = await ldk.post<{ invoice: string; payment_hash: string; hold: boolean }>('/v1/invoices', {
      amount_msat: 30_000_000,
      description: 'hold me',
      payment_hash: hash,
    });
    expect(hold).toMatchObject({ payment_hash: hash, hold: true });
    const early = await ldk.call('POST', `/v1/invoices/${hash}/settle`, { preimage });
    expect({ status: early.status, code: early.body.error.code }).toEqual({ status: 409, code: 'NOT_CLAIMABLE_YET' });

    const paying = pay({ lnd: lnd('alice'), request: hold.invoice });
    paying.catch(() => undefined); // awaited below; a failure fails the test there
    const claimable = await waitEvent(ldk, 'payment_claimable', (event) => event.payment_hash === hash, {
      timeoutMs: 30_000,
    });
    expect(claimable.claimable_amount_msat).toBe(30_000_000);
    expect(await ldk.get<Payment>(`/v1/payments/${hash}`)).toMatchObject({ status: 'pending', direction: 'inbound' });
    const wrong = await ldk.call('POST', `/v1/invoices/${hash}/settle`, { preimage: randomBytes(32).toString('hex') });
    expect(wrong.body.error.code).toBe('PREIMAGE_MISMATCH');

    const settled = await ldk.call<Payment>('POST', `/v1/invoices/${hash}/settle`, { preimage });
    expect(settled.status).toBe(200);
    expect(settled.body).toMatchObject({ status: 'succeeded', amount_msat: 30_000_000, preimage });
    expect((await paying).secret).toBe(preimage);

    const otherPreimage = randomBytes(32).toString('hex');
    const otherHash = sha256(otherPreimage);
    const other = await ldk.post<{ invoice: string }>('/v1/invoices', {
      amount_msat: 11_000_000,
      payment_hash: otherHash,
    });
    const refused = pay({ lnd: lnd('alice'), request: other.invoice }).then(
      () => 'paid',
      () => 'failed',
    );
    await waitEvent(ldk, 'payment_claimable', (event) => event.payment_hash === otherHash, { timeoutMs: 30_000 });
    const canceled = await ldk.call<Payment>('POST', `/v1/invoices/${otherHash}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('failed');
    expect(await refused).toBe('failed');
    const late = await ldk.call('POST', `/v1/invoices/${otherHash}/settle`, { preimage: otherPreimage });
    expect({ status: late.status, code: late.body.error.code }).toEqual({ status: 409, code: 'ALREADY_CANCELED' });
  });

  it('streams its events as server-sent events, replaying from an id', async () => {
    const all = await ldkEvents(ldk);
    expect(all.length).toBeGreaterThan(3);
    const controller = new AbortController();
    const response = await fetch(`${ldk.apiUrl}/v1/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(all.length - 2) },
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let text = '';
    const deadline = Date.now() + 10_000;
    while ((text.match(/\n\n/g) ?? []).length < 2 && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const frames = text
      .trim()
      .split('\n\n')
      .map((frame) =>
        Object.fromEntries(
          frame.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        ),
      );
    expect(frames.map((frame) => Number(frame.id))).toEqual([all.length - 1, all.length]);
    expect(frames.map((frame) => frame.event)).toEqual(all.slice(-2).map((event) => event.type));
    expect(JSON.parse(frames[1]!.data)).toEqual(all.at(-1));
  });

  it('keeps its wallet and channels across a restart', async () => {
    const before = {
      info: await ldk.get('/v1/info'),
      balances: await balances(ldk),
      channels: await channels(ldk),
      events: await ldkEvents(ldk),
    };
    const code = await ldk.stop();
    expect(code).toBe(0);
    expect(ldk.log()).toMatch(/stopped/);
    ldk = await ldk.restart();
    const info = await ldk.get('/v1/info');
    expect(info.node_id).toBe(before.info.node_id);
    expect((await balances(ldk)).onchain.total_sat).toBe(before.balances.onchain.total_sat);
    expect((await channels(ldk)).map((channel) => channel.user_channel_id).sort()).toEqual(
      before.channels.map((channel) => channel.user_channel_id).sort(),
    );
    // The event log is kept as it was: nothing lost, nothing repeated.
    expect((await ldkEvents(ldk)).slice(0, before.events.length)).toEqual(before.events);
    // The peers come back and the channels carry payments again.
    await waitFor(async () => (await channels(ldk)).every((channel) => channel.is_usable), {
      timeoutMs: 60_000,
      what: 'the channels usable after the restart',
    });
    const invoice = await createInvoice({ lnd: lnd('bob'), tokens: 3_000 });
    expect(await ldk.post<Payment>('/v1/payments/bolt11', { invoice: invoice.request })).toMatchObject({
      status: 'succeeded',
    });
  });

  it('pays a BOLT12 offer of another LDK node, both ways', async () => {
    ldk2 = await startLdk({ name: 'ldk2', chainSource: `electrum=tcp://${regtest.address('indexer', 'electrum')}` });
    const opened = await ldk.post<{ funding_txid: string }>('/v1/channels/open', {
      pubkey: ldk2.pubkey,
      address: ldk2.p2p,
      capacity_sat: 500_000,
      push_msat: 100_000_000,
      public: false,
    });
    await waitInMempool(opened.funding_txid);
    await mine(6);
    await waitFor(
      async () => {
        await syncAll();
        const [mine_, theirs] = await Promise.all([
          channelByFunding(ldk, opened.funding_txid),
          channelByFunding(ldk2, opened.funding_txid),
        ]);
        return mine_?.is_usable && theirs?.is_usable;
      },
      { timeoutMs: 60_000, what: 'the ldk-ldk2 channel usable on both' },
    );
    expect((await channelByFunding(ldk, opened.funding_txid))!.is_announced).toBe(false);

    const offer = await ldk2.post<{ offer: string; offer_id: string }>('/v1/offers', {
      amount_msat: 25_000_000,
      description: 'coffee',
    });
    expect(offer.offer).toMatch(/^lno1/);
    const paid = await ldk.call<Payment>('POST', '/v1/payments/bolt12', { offer: offer.offer, payer_note: 'thanks' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({
      kind: 'bolt12_offer',
      direction: 'outbound',
      status: 'succeeded',
      amount_msat: 25_000_000,
    });
    const received = await waitFor(
      async () =>
        (await ldk2.get<{ payments: (Payment & { offer_id: string })[] }>('/v1/payments')).payments.find(
          (p) => p.offer_id === offer.offer_id && p.status === 'succeeded',
        ),
      {
        timeoutMs: 30_000,
        what: 'the offer payment on ldk2',
      },
    );
    expect(received).toMatchObject({ kind: 'bolt12_offer', direction: 'inbound', amount_msat: 25_000_000 });

    const open = await ldk.post<{ offer: string }>('/v1/offers', { description: 'tips' });
    expect((await ldk2.call('POST', '/v1/payments/bolt12', { offer: open.offer })).body.error.code).toBe(
      'AMOUNT_REQUIRED',
    );
    expect(
      await ldk2.post<Payment>('/v1/payments/bolt12', { offer: open.offer, amount_msat: 5_000_000 }),
    ).toMatchObject({ status: 'succeeded', amount_msat: 5_000_000 });
  });

  it('closes cooperatively from the lnd side (the channel alice funded); both wallets get their share', async () => {
    const channel = (await channelByFunding(ldk, aliceChannel))!;
    const ours = (await balances(ldk)).lightning_balances.find(
      (balance) => balance.channel_id === channel.channel_id,
    )!.amount_sat;
    const [ldkBefore, aliceBefore] = [(await balances(ldk)).onchain.total_sat, await lndChainBalance('alice')];
    const vout = (await getChannels({ lnd: lnd('alice') })).channels.find(
      (c) => c.transaction_id === aliceChannel,
    )!.transaction_vout;
    await closeChannel({ lnd: lnd('alice'), transaction_id: aliceChannel, transaction_vout: vout });
    const closed = await waitEvent(ldk, 'channel_closed', (event) => event.user_channel_id === channel.user_channel_id);
    expect(closed.reason).toMatch(/cooperatively/);
    const ldkAfter = await waitFor(
      async () => {
        await mine(1);
        const total = (await balances(ldk)).onchain.total_sat;
        return total > ldkBefore && total;
      },
      { timeoutMs: 30_000, what: 'the close output in the LDK wallet' },
    );
    // The funder (alice) pays the closing fee: LDK gets its whole balance.
    expect(ldkAfter - ldkBefore).toBe(ours);
    await waitFor(async () => (await lndChainBalance('alice')) > aliceBefore, {
      timeoutMs: 30_000,
      what: "alice's share in her wallet",
    });
    expect(await closedOn('alice', aliceChannel)).toMatchObject({ is_cooperative_close: true });
  });

  it('closes cooperatively from the LDK side (a channel bob funded); both wallets get their share', async () => {
    const txid = await openFromLnd('bob', 600_000, 100_000);
    const channel = (await channelByFunding(ldk, txid))!;
    const [ldkBefore, bobBefore] = [(await balances(ldk)).onchain.total_sat, await lndChainBalance('bob')];
    const closing = await ldk.post('/v1/channels/close', {
      user_channel_id: channel.user_channel_id,
      counterparty_node_id: bobPubkey,
    });
    expect(closing).toMatchObject({ channel_id: channel.channel_id, force: false, closing: true });
    const closed = await waitEvent(ldk, 'channel_closed', (event) => event.user_channel_id === channel.user_channel_id);
    expect(closed.reason).toMatch(/cooperatively closed by us/);
    const ldkAfter = await waitFor(
      async () => {
        await mine(1);
        const total = (await balances(ldk)).onchain.total_sat;
        return total > ldkBefore && total;
      },
      { timeoutMs: 30_000, what: 'the close output in the LDK wallet' },
    );
    expect(ldkAfter - ldkBefore).toBe(100_000);
    await waitFor(async () => (await lndChainBalance('bob')) > bobBefore + 490_000, {
      timeoutMs: 30_000,
      what: "bob's share in his wallet",
    });
    expect(await closedOn('bob', txid)).toMatchObject({ is_cooperative_close: true });
  });

  // LDK's lowest closing fee is its 144-block estimate: the lab's chain services answer the relay
  // minimum there (btcd estimates nothing that far), so LDK agrees with lnd's offer. With the 20 sat/vB
  // of a fresh lab at every target, LDK gave up the negotiation and force-closed.
  it('closes cooperatively a channel LDK funded (to alice), from the LDK side', async () => {
    const opened = await openToLnd('alice', 500_000, 50_000_000);
    const channel = (await channelByFunding(ldk, opened.funding_txid))!;
    const ldkBefore = (await balances(ldk)).onchain.total_sat;
    await ldk.post('/v1/channels/close', {
      user_channel_id: channel.user_channel_id,
      counterparty_node_id: alicePubkey,
    });
    const closed = await waitEvent(ldk, 'channel_closed', (event) => event.user_channel_id === channel.user_channel_id);
    expect(closed.reason).toMatch(/cooperatively closed by us/);
    await waitFor(
      async () => {
        await mine(1);
        return (await balances(ldk)).onchain.total_sat > ldkBefore;
      },
      { timeoutMs: 30_000, what: 'the close output in the LDK wallet' },
    );
    expect(await closedOn('alice', opened.funding_txid)).toMatchObject({
      is_cooperative_close: true,
      is_remote_force_close: false,
    });
  });

  it('force-closes from the LDK side (its channel to bob); both sides sweep after the delay', async () => {
    const channel = (await channelByFunding(ldk, bobChannel.funding_txid))!;
    const delay = channel.force_close_spend_delay!;
    expect(delay).toBeGreaterThan(0);
    const ours = (await balances(ldk)).lightning_balances.find(
      (balance) => balance.channel_id === channel.channel_id,
    )!.amount_sat;
    const bobs = (await getChannels({ lnd: lnd('bob') })).channels.find(
      (c) => c.transaction_id === bobChannel.funding_txid,
    )!.local_balance;
    const [ldkBefore, bobBefore] = [(await balances(ldk)).onchain.total_sat, await lndChainBalance('bob')];
    const forced = await ldk.post('/v1/channels/close', { channel_id: channel.channel_id, force: true });
    expect(forced).toMatchObject({ force: true, closing: true });
    const closed = await waitEvent(ldk, 'channel_closed', (event) => event.user_channel_id === channel.user_channel_id);
    expect(closed.reason).toMatch(/closed through the reglab-ldk API/);
    // bob's share has no delay: lnd sweeps it to its wallet once the commitment confirms (less the sweep's fee).
    await waitFor(
      async () => {
        await mine(1);
        return (await lndChainBalance('bob')) >= bobBefore + bobs - 5_000;
      },
      { timeoutMs: 120_000, what: "bob's share of LDK's force close in his wallet" },
    );
    // LDK's share waits for its to_self_delay (set by bob), then LDK sweeps it to its wallet.
    const height = await mine(delay);
    const swept = await waitFor(
      async () => {
        await mine(1);
        const total = (await balances(ldk)).onchain.total_sat;
        return total >= ldkBefore + ours - 5_000 && total;
      },
      { timeoutMs: 180_000, what: "LDK's swept share of its force close" },
    );
    expect(swept - ldkBefore).toBeLessThanOrEqual(ours);
    expect(await regtest.chain.getBlockCount()).toBeGreaterThan(height);
  }, 300_000);

  it('force-closed by lnd (a channel bob funded); both sides sweep after the delay', async () => {
    const txid = await openFromLnd('bob', 600_000, 100_000);
    const channel = (await channelByFunding(ldk, txid))!;
    const [ldkBefore, bobBefore] = [(await balances(ldk)).onchain.total_sat, await lndChainBalance('bob')];
    const vout = (await getChannels({ lnd: lnd('bob') })).channels.find(
      (c) => c.transaction_id === txid,
    )!.transaction_vout;
    await closeChannel({ lnd: lnd('bob'), transaction_id: txid, transaction_vout: vout, is_force_close: true });
    await mine(1);
    const closed = await waitEvent(ldk, 'channel_closed', (event) => event.user_channel_id === channel.user_channel_id);
    expect(closed.reason).toMatch(/confirmed on chain|force-closed/);
    // LDK's share has no delay: LDK sweeps it into its wallet.
    await waitFor(
      async () => {
        await mine(1);
        return (await balances(ldk)).onchain.total_sat >= ldkBefore + 100_000 - 5_000;
      },
      { timeoutMs: 120_000, what: "LDK's swept share of bob's force close" },
    );
    // bob's share waits for the to_self_delay LDK asked for (lnd reports the height it matures at).
    const pending = await waitFor(
      async () =>
        (await getPendingChannels({ lnd: lnd('bob') })).pending_channels.find(
          (c) => c.transaction_id === txid && c.is_timelocked && c.timelock_expiration,
        ),
      { timeoutMs: 30_000, what: "bob's timelocked share" },
    );
    expect(pending.timelock_blocks).toBeGreaterThan(0);
    await mine(Math.max(1, pending.timelock_expiration! - (await regtest.chain.getBlockCount())));
    await waitFor(
      async () => {
        await mine(1);
        // 500,000 less the commitment fee bob paid as funder and his sweep's fee.
        return (await lndChainBalance('bob')) >= bobBefore + 480_000;
      },
      { timeoutMs: 180_000, what: "bob's swept share of his force close" },
    );
  }, 300_000);
});
