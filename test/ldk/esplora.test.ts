// reglab-ldk with the lab's chain adapter (Esplora) as its chain source: LDK's transaction sync
// checks each confirmation with GET /tx/:txid/merkleblock-proof, so a channel's funding is only
// seen confirmed if the adapter serves that proof right.
// Its own lab: the LDK daemon it checks is started by the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvoice, getChannels, getInvoice, getWalletInfo } from 'ln-service';
import { fund, mineBlocks } from '../../control-plane/src/lab/operations.js';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { startLdk, stopAll, type LdkNode } from './support.js';

describe('reglab-ldk over the lab chain adapter (Esplora)', () => {
  let regtest: Regtest;
  let ldk: LdkNode;
  let esplora: string;

  beforeAll(async () => {
    regtest = await startRegtest({ lnd: ['alice'], indexer: true, services: { 'chain-adapter': {} } });
    esplora = `http://${regtest.address('chain-adapter', 'http')}/api`;
    ldk = await startLdk({ name: 'ldk', chainSource: `esplora=${esplora}` });
  });
  afterAll(async () => {
    await stopAll();
    await regtest?.stop();
  });

  /** Mines, then syncs LDK until it has seen the new tip through the adapter. */
  const mine = async (blocks: number) => {
    const { height } = await mineBlocks(regtest.session, blocks);
    await waitFor(async () => (await ldk.post<{ block: { height: number } }>('/v1/sync')).block.height >= height, {
      timeoutMs: 30_000,
      what: `LDK at height ${height} through the adapter`,
    });
  };

  it('is ready and synced through the adapter', async () => {
    expect(await ldk.get('/v1/info')).toMatchObject({
      chain_source: { kind: 'esplora', url: esplora },
      synced: true,
      block: { height: await regtest.chain.getBlockCount(), hash: await regtest.chain.getBestBlockHash() },
    });
  });

  it('sees a channel funding confirmed, and pays over the channel', async () => {
    const { address } = await ldk.post<{ address: string }>('/v1/address');
    await fund(regtest.session, { address, amountSat: 2_000_000n });
    await waitFor(
      async () => {
        await ldk.post('/v1/sync');
        return (
          (await ldk.get<{ onchain: { spendable_sat: number } }>('/v1/balances')).onchain.spendable_sat === 2_000_000
        );
      },
      { timeoutMs: 30_000, what: 'the funding in the LDK wallet' },
    );

    const alice = (await getWalletInfo({ lnd: regtest.lnd('alice') })).public_key;
    const opened = await ldk.post<{ funding_txid: string; user_channel_id: string }>('/v1/channels/open', {
      pubkey: alice,
      address: regtest.address('alice', 'p2p'),
      capacity_sat: 500_000,
    });
    await waitFor(async () => (await regtest.chain.getRawMempool()).includes(opened.funding_txid), {
      timeoutMs: 30_000,
      what: 'the funding transaction in the mempool',
    });
    const unconfirmed = (
      await ldk.get<{
        channels: { user_channel_id: string; confirmations: number | null; is_channel_ready: boolean }[];
      }>('/v1/channels')
    ).channels;
    expect(unconfirmed.find((channel) => channel.user_channel_id === opened.user_channel_id)).toMatchObject({
      is_channel_ready: false,
    });

    await mine(6);
    const channel = await waitFor(
      async () => {
        await ldk.post('/v1/sync');
        const found = (
          await ldk.get<{ channels: { user_channel_id: string; confirmations: number | null; is_usable: boolean }[] }>(
            '/v1/channels',
          )
        ).channels.find((c) => c.user_channel_id === opened.user_channel_id);
        return found?.is_usable && found;
      },
      { timeoutMs: 60_000, what: 'the channel confirmed and usable through the adapter' },
    );
    expect(channel.confirmations).toBeGreaterThanOrEqual(6);
    // The proof LDK checked, as the adapter serves it: the block header, then the partial tree.
    const proof = await (await fetch(`${esplora}/tx/${opened.funding_txid}/merkleblock-proof`)).text();
    const status = (await (await fetch(`${esplora}/tx/${opened.funding_txid}/status`)).json()) as {
      block_hash: string;
    };
    expect(proof.slice(0, 160)).toBe(await regtest.chain.getBlockHeaderHex(status.block_hash));

    await waitFor(
      async () =>
        (await getChannels({ lnd: regtest.lnd('alice'), is_active: true })).channels.some(
          (c) => c.transaction_id === opened.funding_txid,
        ),
      {
        timeoutMs: 30_000,
        what: 'the channel active on alice',
      },
    );
    const invoice = await createInvoice({ lnd: regtest.lnd('alice'), tokens: 12_000 });
    expect(await ldk.post('/v1/payments/bolt11', { invoice: invoice.request })).toMatchObject({
      status: 'succeeded',
      amount_msat: 12_000_000,
    });
    expect((await getInvoice({ lnd: regtest.lnd('alice'), id: invoice.id })).is_confirmed).toBe(true);
  });
});
