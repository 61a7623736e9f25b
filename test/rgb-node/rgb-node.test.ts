// An rgb node (services/rgb-node) over real rgb-lib, a real lab (btcd, the Electrum indexer, the
// Esplora chain adapter) and the lab's consignment proxy, driven through RLN's API as the lab and RLN
// clients drive it: the lab's RLN start sequence unchanged, issuance, invoices, a transfer settled on
// both sides, refusals in RLN's error body, a restart.
// Its own lab of btcd, the indexer and the chain adapter: the rgb nodes it checks run in the test.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mineBlocks } from '../../control-plane/src/lab/operations.js';
import { bringUpRln, type RlnChainAccess } from '../../control-plane/src/nodes/rln/start-sequence.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { startRegtest, type Regtest } from '../support/regtest.js';
import { labChain, startRgbNode, startRgbProxy, testFolder, type RgbNodeProcess } from './support.js';

const PASSWORD = 'lab-password-1';
const SUPPLY = 1_000;

describe('rgb node on rgb-lib, in a lab with the consignment proxy', () => {
  let regtest: Regtest;
  let proxy: Awaited<ReturnType<typeof startRgbProxy>>;
  let esplora: string;
  let electrum: string;
  let chain: RlnChainAccess;
  let issuer: RgbNodeProcess;
  let receiver: RgbNodeProcess;
  const stops: Array<() => Promise<unknown>> = [];
  let assetId: string;
  let issuerPubkey: string;
  let issuerMnemonic: string;

  const folder = testFolder();
  stops.push(async () => rmSync(folder, { recursive: true, force: true }));

  beforeAll(async () => {
    regtest = await startRegtest({ indexer: true, services: { 'chain-adapter': {} } });
    stops.push(() => regtest.stop());
    esplora = `http://${regtest.address('chain-adapter', 'http')}/api`;
    chain = labChain(regtest, esplora);
    proxy = await startRgbProxy(join(folder, 'proxy'));
    stops.push(() => proxy.stop());
    issuer = await startRgbNode({ INDEXER_URL: esplora, PROXY_ENDPOINT: proxy.endpoint }, join(folder, 'issuer'));
    stops.push(() => issuer.stop());
    // the receiver reads the chain from the lab's Electrum indexer, the issuer from the Esplora adapter
    electrum = `tcp://${regtest.address('indexer', 'electrum')}`;
    receiver = await startRgbNode({ INDEXER_URL: electrum, PROXY_ENDPOINT: proxy.endpoint }, join(folder, 'receiver'));
    stops.push(() => receiver.stop());
  });

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  });

  /** The transfers of `txid` on a node, after a /refreshtransfers there. */
  async function transfersOf(node: RgbNodeProcess, txid: string) {
    await node.client.call('POST', '/refreshtransfers', { skip_sync: false });
    const { transfers } = await node.client.call<{ transfers: { status: string; txid: string | null }[] }>(
      'POST',
      '/listtransfers',
      { asset_id: assetId },
    );
    return transfers.filter((transfer) => transfer.txid === txid);
  }

  /**
   * Refreshes both nodes (receiver first: it ACKs, then the issuer broadcasts), mines once the transaction is out,
   * until both sides are settled.
   */
  async function settle(txid: string): Promise<void> {
    let mined = false;
    await waitFor(
      async () => {
        const received = await transfersOf(receiver, txid);
        const sent = await transfersOf(issuer, txid);
        if (!mined && sent.length > 0 && sent.every((transfer) => transfer.status === 'WaitingConfirmations')) {
          await mineBlocks(regtest.session, 1);
          mined = true;
        }
        return received.length > 0 && [...received, ...sent].every((transfer) => transfer.status === 'Settled');
      },
      { timeoutMs: 60_000, intervalMs: 500, what: `transfer ${txid} to settle on both nodes` },
    );
  }

  it("refuses every call before /init with 403 NotInitialized in RLN's error body, and a short password with 400", async () => {
    expect(await issuer.call('POST', '/address', {})).toEqual({
      status: 403,
      body: { error: 'Wallet has not been initialized (hint: call init)', code: 403, name: 'NotInitialized' },
    });
    expect((await issuer.call('GET', '/nodeinfo')).body.name).toBe('NotInitialized');
    expect(await issuer.call('POST', '/init', { password: 'short' })).toEqual({
      status: 400,
      body: { error: 'Invalid password: must have at least 8 chars', code: 400, name: 'InvalidPassword' },
    });
    expect((await issuer.call('POST', '/unlock', { password: PASSWORD })).body.name).toBe('NotInitialized');
  });

  it("runs the lab's RLN start sequence unchanged: init, unlock, funding, colored UTXOs, NIA issuance", async () => {
    const result = await bringUpRln(issuer.client, chain, {
      unlock: { password: PASSWORD, chain: { kind: 'btcd' }, indexerUrl: esplora, alias: 'issuer' },
      fundingSat: 1_000_000n,
      utxos: { num: 5 },
      asset: { ticker: 'USDT', name: 'Tether', precision: 0, amount: SUPPLY },
    });
    expect(result.mnemonic?.split(' ')).toHaveLength(12);
    expect(result.unlockShape).toBe('head');
    expect(result.pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
    expect(result.asset).toMatchObject({ ticker: 'USDT', name: 'Tether', precision: 0, issued_supply: SUPPLY });
    assetId = result.asset!.asset_id;
    issuerPubkey = result.pubkey;
    issuerMnemonic = result.mnemonic!;
    expect(await issuer.client.call('POST', '/assetbalance', { asset_id: assetId })).toEqual({
      settled: SUPPLY,
      future: SUPPLY,
      spendable: SUPPLY,
      offchain_outbound: 0,
      offchain_inbound: 0,
    });
    // five colored UTXOs of RLN's default size, one of them now holding the issued asset
    expect((await issuer.client.btcBalance()).colored.settled).toBe(5 * 32_000);
    expect(await issuer.client.networkInfo()).toEqual({
      network: 'Regtest',
      height: await regtest.chain.getBlockCount(),
    });
    expect(await issuer.client.nodeInfo()).toMatchObject({
      pubkey: issuerPubkey,
      num_channels: 0,
      num_usable_channels: 0,
      num_peers: 0,
    });
  });

  it('restores a node from its mnemonic: the same key and the same bitcoin; a mnemonic that is not one is 400', async () => {
    const restored = await startRgbNode(
      { INDEXER_URL: esplora, PROXY_ENDPOINT: proxy.endpoint },
      join(folder, 'restored'),
    );
    try {
      expect(
        (await restored.call('POST', '/init', { password: PASSWORD, mnemonic: 'not a mnemonic' })).body,
      ).toMatchObject({ code: 400, name: 'InvalidMnemonic' });
      expect((await restored.call('POST', '/address', {})).body.name).toBe('NotInitialized');
      expect(await restored.client.init(PASSWORD, issuerMnemonic)).toEqual({ mnemonic: issuerMnemonic });
      expect(await restored.call('POST', '/unlock', { password: PASSWORD, indexer_url: esplora })).toEqual({
        status: 200,
        body: {},
      });
      expect((await restored.client.nodeInfo()).pubkey).toBe(issuerPubkey);
      expect((await restored.client.btcBalance()).vanilla).toEqual((await issuer.client.btcBalance()).vanilla);
    } finally {
      await restored.stop();
    }
  });

  it('answers a second /init 403 AlreadyInitialized and a second /unlock 403 UnlockedNode', async () => {
    expect(await issuer.call('POST', '/init', { password: PASSWORD })).toEqual({
      status: 403,
      body: { error: 'Node has already been initialized', code: 403, name: 'AlreadyInitialized' },
    });
    expect((await issuer.call('POST', '/unlock', { password: PASSWORD })).body).toMatchObject({
      code: 403,
      name: 'UnlockedNode',
    });
  });

  let blinded: { recipient_id: string; invoice: string };
  let witness: { recipient_id: string; invoice: string };

  it('makes a blinded and a witness invoice on a second node, naming the lab proxy', async () => {
    await bringUpRln(receiver.client, chain, {
      unlock: { password: PASSWORD, chain: { kind: 'btcd' }, indexerUrl: electrum },
      fundingSat: 500_000n,
      utxos: { num: 4 },
    });
    // rgb-lib invoices name only assets the wallet knows already: a first receipt is for any asset
    expect(
      (await receiver.call('POST', '/rgbinvoice', { asset_id: assetId, min_confirmations: 1, witness: false })).body,
    ).toMatchObject({ code: 403, name: 'UnknownContractId' });
    // its height comes from the lab's Electrum indexer, which the chain adapter serves from too
    expect(await receiver.client.networkInfo()).toEqual({ network: 'Regtest', height: await chain.indexedHeight() });
    blinded = await receiver.client.call('POST', '/rgbinvoice', {
      assignment: { type: 'Fungible', value: 100 },
      min_confirmations: 1,
      witness: false,
    });
    witness = await receiver.client.call('POST', '/rgbinvoice', {
      assignment: { type: 'Fungible', value: 50 },
      min_confirmations: 1,
      witness: true,
    });
    expect(blinded.recipient_id).toMatch(/^bcrt:utxob:/);
    expect(witness.recipient_id).toMatch(/^bcrt:wvout:/);
    expect(await receiver.client.call('POST', '/decodergbinvoice', { invoice: blinded.invoice })).toMatchObject({
      recipient_id: blinded.recipient_id,
      recipient_type: 'Blind',
      asset_id: null,
      assignment: { type: 'Fungible', value: 100 },
      network: 'Regtest',
      transport_endpoints: [proxy.endpoint],
    });
    expect(await issuer.client.call('POST', '/decodergbinvoice', { invoice: witness.invoice })).toMatchObject({
      recipient_type: 'Witness',
      assignment: { type: 'Fungible', value: 50 },
    });
  });

  it('refuses a send beyond the balance (403 InsufficientAssets) and a string amount (400), moving nothing', async () => {
    const recipient = (value: unknown) => ({
      [assetId]: [
        {
          recipient_id: blinded.recipient_id,
          assignment: { type: 'Fungible', value },
          transport_endpoints: [proxy.endpoint],
        },
      ],
    });
    expect(
      await issuer.call('POST', '/sendrgb', {
        donation: false,
        fee_rate: 1,
        min_confirmations: 1,
        recipient_map: recipient(SUPPLY + 1),
      }),
    ).toEqual({
      status: 403,
      body: { error: 'Not enough assets', code: 403, name: 'InsufficientAssets' },
    });
    const typed = await issuer.call('POST', '/sendrgb', {
      donation: false,
      fee_rate: 1,
      min_confirmations: 1,
      recipient_map: recipient('100'),
    });
    expect(typed).toMatchObject({ status: 400, body: { code: 400, name: 'JsonExtractorRejection' } });
    expect(typed.body.error).toMatch(/integer/);
    expect((await issuer.call('POST', '/assetbalance', { asset_id: 'rgb:unknown' })).body).toMatchObject({
      code: 403,
      name: 'UnknownContractId',
    });
    expect(
      (await issuer.client.call<{ transfers: unknown[] }>('POST', '/listtransfers', { asset_id: assetId })).transfers,
    ).toHaveLength(1);
    expect(await issuer.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: SUPPLY,
      spendable: SUPPLY,
    });
  });

  it('refuses zero amounts, empty lists, a recipient without transport endpoint and a proxy it cannot reach, changing nothing', async () => {
    /** What a refusal must leave as it was: UTXOs (with their reservations), transfers, balances. */
    const state = async () => ({
      issuerUnspents: await issuer.client.call('POST', '/listunspents', { skip_sync: false }),
      receiverUnspents: await receiver.client.call('POST', '/listunspents', { skip_sync: false }),
      transfers: await issuer.client.call('POST', '/listtransfers', { asset_id: assetId }),
      asset: await issuer.client.call('POST', '/assetbalance', { asset_id: assetId }),
      btc: await issuer.client.btcBalance(),
    });
    const before = await state();
    const recipient = (changes: Record<string, unknown>) => ({
      donation: true,
      fee_rate: 1,
      min_confirmations: 1,
      recipient_map: {
        [assetId]: [
          {
            recipient_id: blinded.recipient_id,
            assignment: { type: 'Fungible', value: 10 },
            transport_endpoints: [proxy.endpoint],
            ...changes,
          },
        ],
      },
    });
    const refusals: [RgbNodeProcess, string, unknown, number, string, RegExp][] = [
      [
        receiver,
        '/rgbinvoice',
        { assignment: { type: 'Fungible', value: 0 }, min_confirmations: 1, witness: false },
        400,
        'InvalidAmount',
        /^Invalid amount: an invoice for 0 cannot be paid: ask for 1 or more, or leave assignment out/,
      ],
      [
        receiver,
        '/rgbinvoice',
        { assignment: { type: 'Fungible', value: 0 }, min_confirmations: 1, witness: true },
        400,
        'InvalidAmount',
        /an invoice for 0/,
      ],
      [
        issuer,
        '/sendrgb',
        recipient({ transport_endpoints: [] }),
        400,
        'InvalidTransportEndpoints',
        /^Invalid transport endpoints: recipient bcrt:utxob:\S+ names none: give the consignment proxy its invoice names/,
      ],
      [
        issuer,
        '/sendasset',
        {
          asset_id: assetId,
          amount: 10,
          recipient_id: blinded.recipient_id,
          donation: false,
          fee_rate: 1,
          min_confirmations: 1,
          transport_endpoints: [],
        },
        400,
        'InvalidTransportEndpoints',
        /names none/,
      ],
      [
        issuer,
        '/sendrgb',
        recipient({ assignment: { type: 'Fungible', value: 0 } }),
        400,
        'InvalidAmount',
        /^Invalid amount: recipient bcrt:utxob:\S+ is sent 0 of rgb:\S+: send 1 or more$/,
      ],
      [
        issuer,
        '/sendrgb',
        recipient({ recipient_id: witness.recipient_id, witness_data: { amount_sat: 0 } }),
        400,
        'InvalidAmount',
        /witness_data\.amount_sat must be 1 or more, not 0/,
      ],
      [
        issuer,
        '/sendrgb',
        recipient({ transport_endpoints: [`rpc://127.0.0.1:${await freePort()}/json-rpc`] }),
        503,
        'NoValidTransportEndpoint',
        /^No valid transport endpoint found: .*the proxy is down or this node cannot reach it$/,
      ],
      [
        issuer,
        '/sendrgb',
        { ...recipient({}), recipient_map: {} },
        400,
        'InvalidRequest',
        /^Invalid request: recipient_map names no asset/,
      ],
      [
        issuer,
        '/sendrgb',
        { ...recipient({}), recipient_map: { [assetId]: [] } },
        400,
        'InvalidRequest',
        /^Invalid request: recipient_map names no recipient for rgb:\S+$/,
      ],
      [
        issuer,
        '/issueassetnia',
        { amounts: [], ticker: 'NONE', name: 'None', precision: 0 },
        400,
        'InvalidAmount',
        /^Invalid amount: issuance request with no provided amounts: give one or more$/,
      ],
      [
        issuer,
        '/issueassetnia',
        { amounts: [10, 0], ticker: 'ZERO', name: 'Zero', precision: 0 },
        400,
        'InvalidAmount',
        /^Invalid amount: each of amounts must be 1 or more, not 0$/,
      ],
      [
        issuer,
        '/sendbtc',
        { amount: 0, address: await issuer.client.address(), fee_rate: 1, skip_sync: false },
        400,
        'InvalidAmount',
        /amount must be 1 or more, not 0/,
      ],
      [
        issuer,
        '/createutxos',
        { up_to: false, num: 0, fee_rate: 1, skip_sync: false },
        400,
        'InvalidAmount',
        /num must be 1 or more, not 0/,
      ],
    ];
    for (const [node, path, body, status, name, message] of refusals) {
      const answer = await node.call('POST', path, body);
      expect(answer, `${path} ${JSON.stringify(body)}`).toMatchObject({ status, body: { code: status, name } });
      expect(answer.body.error).toMatch(message);
    }
    expect(await state()).toEqual(before);
  });

  it('sends to both invoices through the proxy; after refreshes on both sides and a block the balances have moved exactly', async () => {
    const { txid } = await issuer.client.call<{ txid: string }>('POST', '/sendrgb', {
      donation: false,
      fee_rate: 1,
      min_confirmations: 1,
      recipient_map: {
        [assetId]: [
          {
            recipient_id: blinded.recipient_id,
            assignment: { type: 'Fungible', value: 100 },
            transport_endpoints: [proxy.endpoint],
          },
          {
            recipient_id: witness.recipient_id,
            witness_data: { amount_sat: 1_000 },
            assignment: { type: 'Fungible', value: 50 },
            transport_endpoints: [proxy.endpoint],
          },
        ],
      },
    });
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    await settle(txid);
    expect(await issuer.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: SUPPLY - 150,
      future: SUPPLY - 150,
      spendable: SUPPLY - 150,
    });
    expect(await receiver.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: 150,
      future: 150,
      spendable: 150,
    });
    const { transfers } = await receiver.client.call<{
      transfers: { kind: string; txid: string; assignments: unknown[] }[];
    }>('POST', '/listtransfers', { asset_id: assetId });
    expect(transfers.map((transfer) => [transfer.kind, transfer.txid, transfer.assignments]).sort()).toEqual([
      ['ReceiveBlind', txid, [{ type: 'Fungible', value: 100 }]],
      ['ReceiveWitness', txid, [{ type: 'Fungible', value: 50 }]],
    ]);
  });

  it("takes OLD RLN's flat /sendasset body: one amount to one blinded recipient", async () => {
    const invoice = await receiver.client.call<{ recipient_id: string }>('POST', '/rgbinvoice', {
      asset_id: assetId,
      assignment: { type: 'Fungible', value: 25 },
      min_confirmations: 1,
      witness: false,
    });
    const { txid } = await issuer.client.call<{ txid: string }>('POST', '/sendasset', {
      asset_id: assetId,
      amount: 25,
      recipient_id: invoice.recipient_id,
      donation: false,
      fee_rate: 1,
      min_confirmations: 1,
      transport_endpoints: [proxy.endpoint],
      skip_sync: false,
    });
    await settle(txid);
    expect(await issuer.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: SUPPLY - 175,
      spendable: SUPPLY - 175,
    });
    expect(await receiver.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: 175,
      spendable: 175,
    });
  });

  it('issues CFA and UDA assets and lists assets by schema; media it cannot hold is refused', async () => {
    const { asset: cfa } = await issuer.client.call<{ asset: Record<string, unknown> }>('POST', '/issueassetcfa', {
      amounts: [500],
      name: 'Collectible',
      details: 'a test CFA',
      precision: 2,
    });
    expect(cfa).toMatchObject({
      name: 'Collectible',
      details: 'a test CFA',
      precision: 2,
      issued_supply: 500,
      balance: { settled: 500, spendable: 500 },
    });
    const { asset: uda } = await issuer.client.call<{ asset: Record<string, unknown> }>('POST', '/issueassetuda', {
      ticker: 'UNQ',
      name: 'Unique',
      precision: 0,
      attachments_file_digests: [],
    });
    expect(uda).toMatchObject({ ticker: 'UNQ', name: 'Unique', balance: { settled: 1 }, token: { index: 0 } });
    const onlyCfa = await issuer.client.call<Record<string, unknown[] | null>>('POST', '/listassets', {
      filter_asset_schemas: ['Cfa'],
    });
    expect(onlyCfa).toEqual({ nia: null, uda: null, cfa: [cfa], ifa: null });
    expect(await issuer.client.call('POST', '/listassets', { filter_asset_schemas: ['Ifa'] })).toEqual({
      nia: null,
      uda: null,
      cfa: null,
      ifa: [],
    });
    const all = await issuer.client.call<Record<string, { asset_id: string }[]>>('POST', '/listassets', {
      filter_asset_schemas: [],
    });
    expect([all.nia, all.cfa, all.uda].map((list) => list.map((asset) => asset.asset_id))).toEqual([
      [assetId],
      [cfa.asset_id],
      [uda.asset_id],
    ]);
    const media = await issuer.call('POST', '/issueassetuda', {
      ticker: 'PIC',
      name: 'Picture',
      precision: 0,
      media_file_digest: 'ab'.repeat(32),
      attachments_file_digests: [],
    });
    expect(media.body).toMatchObject({ code: 400, name: 'InvalidRequest' });
    expect(media.body.error).toMatch(/no uploaded media/);
  });

  it('sends bitcoin and lists its UTXOs with their RGB allocations', async () => {
    const address = await receiver.client.address();
    const before = (await receiver.client.btcBalance()).vanilla.future;
    const { txid } = await issuer.client.call<{ txid: string }>('POST', '/sendbtc', {
      amount: 10_000,
      address,
      fee_rate: 1,
      skip_sync: false,
    });
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    // the receiver sees the payment once its indexer has the transaction in its mempool
    await waitFor(async () => (await receiver.client.btcBalance()).vanilla.future === before + 10_000, {
      timeoutMs: 30_000,
      intervalMs: 300,
      what: 'the receiver to see 10000 sat more',
    });
    const { unspents } = await issuer.client.call<{
      unspents: {
        utxo: { outpoint: string; btc_amount: number };
        rgb_allocations: { asset_id: string; assignment: unknown; settled: boolean }[];
      }[];
    }>('POST', '/listunspents', { skip_sync: false });
    const holding = unspents.filter((unspent) =>
      unspent.rgb_allocations.some((allocation) => allocation.asset_id === assetId),
    );
    expect(holding.map((unspent) => unspent.rgb_allocations)).toEqual([
      [{ asset_id: assetId, assignment: { type: 'Fungible', value: SUPPLY - 175 }, settled: true }],
    ]);
    expect(holding[0].utxo.outpoint).toMatch(/^[0-9a-f]{64}:\d+$/);
  });

  it('fails an invoice nobody paid; failing it again is refused', async () => {
    const invoice = await receiver.client.call<{ batch_transfer_idx: number }>('POST', '/rgbinvoice', {
      min_confirmations: 1,
      witness: false,
    });
    const fail = { batch_transfer_idx: invoice.batch_transfer_idx, no_asset_only: false, skip_sync: false };
    expect(await receiver.client.call('POST', '/failtransfers', fail)).toEqual({ transfers_changed: true });
    expect((await receiver.call('POST', '/failtransfers', fail)).body).toMatchObject({
      code: 403,
      name: 'CannotFailBatchTransfer',
    });
  });

  it('refuses a field no RLN version has, naming it', async () => {
    const answer = await issuer.call('POST', '/btcbalance', { skip_sync: true, skipsync: true });
    expect(answer).toMatchObject({ status: 400, body: { code: 400, name: 'JsonExtractorRejection' } });
    expect(answer.body.error).toContain('"skipsync"');
  });

  it('refuses the Lightning routes clearly and lists no channels', async () => {
    for (const path of ['/openchannel', '/lninvoice', '/sendpayment', '/keysend', '/connectpeer']) {
      const answer = await issuer.call('POST', path, {});
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: `${path}: this node has no Lightning side (an rgb node is an RGB wallet on rgb-lib; asset channels need RGB Lightning Node)`,
        code: 400,
        name: 'NoLightningSide',
      });
    }
    expect(await issuer.client.listChannels()).toEqual([]);
  });

  it('keeps its wallet across a restart: locked at first, 401 for a wrong password, "changing state" while unlocking, then the same key and balance', async () => {
    await receiver.stop();
    receiver = await startRgbNode({ INDEXER_URL: electrum, PROXY_ENDPOINT: proxy.endpoint }, receiver.dataDir);
    expect((await receiver.call('POST', '/assetbalance', { asset_id: assetId })).body).toEqual({
      error: 'Node is locked (hint: call unlock)',
      code: 403,
      name: 'LockedNode',
    });
    expect(await receiver.call('POST', '/unlock', { password: 'not-the-password' })).toEqual({
      status: 401,
      body: { error: 'The provided password is incorrect', code: 401, name: 'WrongPassword' },
    });
    expect((await receiver.call('POST', '/address', {})).body.name).toBe('LockedNode');
    // while /unlock opens the keys and goes online, other calls are refused as RLN refuses them
    const unlocking = receiver.call('POST', '/unlock', { password: PASSWORD });
    const firstOtherThanLocked = await waitFor(
      async () => {
        const { status, body } = await receiver.call('POST', '/address', {});
        return body?.name === 'LockedNode' ? undefined : (body?.name ?? status);
      },
      { timeoutMs: 30_000, intervalMs: 5, what: '/address to answer something other than LockedNode' },
    );
    expect(firstOtherThanLocked).toBe('ChangingState');
    expect(await unlocking).toEqual({ status: 200, body: {} });
    expect(await receiver.client.call('POST', '/assetbalance', { asset_id: assetId })).toMatchObject({
      settled: 175,
      spendable: 175,
    });
  });

  it('locks: afterwards every wallet call is 403 LockedNode until /unlock', async () => {
    expect(await issuer.call('POST', '/lock')).toEqual({ status: 200, body: {} });
    expect((await issuer.call('POST', '/btcbalance', { skip_sync: true })).body.name).toBe('LockedNode');
    expect((await issuer.call('GET', '/listchannels')).body.name).toBe('LockedNode');
    expect(await issuer.call('POST', '/unlock', { password: PASSWORD })).toEqual({ status: 200, body: {} });
    expect((await issuer.client.nodeInfo()).pubkey).toBe(issuerPubkey);
  });

  it("serves its OpenAPI document with RLN's paths and error body", async () => {
    const document = (await issuer.call('GET', '/openapi.json')).body;
    for (const path of [
      '/init',
      '/unlock',
      '/createutxos',
      '/issueassetnia',
      '/rgbinvoice',
      '/sendrgb',
      '/sendasset',
      '/refreshtransfers',
      '/openchannel',
    ])
      expect(document.paths[path]).toBeDefined();
    expect(document.paths['/sendrgb'].post.responses['403'].content['application/json'].schema.required).toEqual([
      'error',
      'code',
      'name',
    ]);
  });
});
