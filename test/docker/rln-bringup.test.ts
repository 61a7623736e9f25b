// The rln start sequence against the RLN contract double (RLN itself cannot run here).
import { afterEach, describe, expect, it } from 'vitest';
import { RlnClient } from '../../lib/rln/client.js';
import {
  bringUpRln,
  initAndUnlock,
  openAssetChannel,
  rlnArgs,
  type RlnChainAccess,
  type RlnUnlockSettings,
} from '../../control-plane/src/nodes/rln/start-sequence.js';
import { dockerPlacement } from '../../control-plane/src/runtimes/docker/placement.js';
import { layoutOf } from './support.js';
import { startRlnDouble, type RlnLifecycleOptions, type RlnNodeControl } from '../doubles/rln-double.js';

/** A chain whose indexer lags a little behind its tip, paying to the doubles' addresses. */
class FakeChain implements RlnChainAccess {
  tip = 101;
  indexed = 101;
  readonly mined: number[] = [];
  constructor(private readonly nodes: RlnNodeControl[]) {}
  async height() {
    return this.tip;
  }
  async mine(blocks: number) {
    this.tip += blocks;
    this.mined.push(blocks);
    const tip = this.tip;
    setTimeout(() => (this.indexed = tip), 30).unref();
    for (const node of this.nodes) node.setChainHeight(tip);
  }
  async send(address: string, amountSat: bigint) {
    const node = this.nodes.find((candidate) => candidate.owns(address));
    if (!node) throw new Error(`no node owns ${address}`);
    node.receive(address, Number(amountSat));
  }
  async indexedHeight() {
    return this.indexed;
  }
}

const btcdLab: RlnUnlockSettings = {
  password: 'lab-password-1',
  chain: { kind: 'btcd' },
  indexerUrl: 'tcp://reglab-l-indexer:50001',
  alias: 'rgb1',
};
const bitcoindLab: RlnUnlockSettings = {
  ...btcdLab,
  chain: { kind: 'bitcoind', host: 'reglab-l-chain', port: 18443, user: 'u', password: 'p' },
  proxyEndpoint: 'rpc://reglab-l-proxy:3000/json-rpc',
};
const fast = { retryMs: 20, timeoutMs: 10_000 };

describe('rln start sequence (against the RLN contract double)', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  async function node(lifecycle: RlnLifecycleOptions = {}) {
    const double = await startRlnDouble({ lifecycle });
    closers.push(double.close);
    return { double, node: double.control.node, calls: double.control.calls, client: new RlnClient(double.url) };
  }

  it('runs init, unlock (HEAD, through "changing state"), fund, mine, createutxos, mine, issue NIA in order', async () => {
    const { double, node: state, calls, client } = await node({ unlockBusyCalls: 2, syncDelayMs: 50 });
    const chain = new FakeChain([state]);
    const result = await bringUpRln(
      client,
      chain,
      {
        unlock: btcdLab,
        fundingSat: 1_000_000n,
        utxos: { num: 10 },
        asset: { ticker: 'USDT', name: 'Tether', precision: 0, amount: 1_000 },
      },
      fast,
    );
    expect(result.mnemonic).toMatch(/^(\w+ ){11}\w+$/);
    expect(result.unlockShape).toBe('head');
    expect(result.pubkey).toBe(double.pubkey);
    expect(state.owns(result.address)).toBe(true);
    expect(result.asset).toMatchObject({ ticker: 'USDT', issued_supply: 1_000 });
    expect(state.unlockBodies).toEqual([
      {
        password: 'lab-password-1',
        ldk_chain_sync: { mode: 'TransactionSync', config: { indexer_url: 'tcp://reglab-l-indexer:50001' } },
        indexer_url: 'tcp://reglab-l-indexer:50001',
        announce_addresses: [],
        announce_alias: 'rgb1',
      },
    ]);
    const sequence = calls.filter((call) => call !== '/networkinfo');
    expect(sequence).toEqual([
      '/init',
      '/unlock',
      '/unlock',
      '/unlock',
      '/address',
      ...sequence.slice(5, -2),
      '/issueassetnia',
      '/nodeinfo',
    ]);
    // createutxos was retried until the node had synced the block with its funding
    expect(sequence.slice(5, -2).every((call) => call === '/createutxos')).toBe(true);
    expect(chain.mined).toEqual([1, 1]);
    expect(state.coloredUtxos).toBe(9);
  });

  it('falls back to the OLD /unlock body for an older RLN and gives it bitcoind and the proxy', async () => {
    const { node: state, client } = await node({ unlockShape: 'old' });
    const { shape } = await initAndUnlock(client, bitcoindLab, fast);
    expect(shape).toBe('old');
    expect(state.unlockBodies).toEqual([
      {
        password: 'lab-password-1',
        bitcoind_rpc_username: 'u',
        bitcoind_rpc_password: 'p',
        bitcoind_rpc_host: 'reglab-l-chain',
        bitcoind_rpc_port: 18443,
        indexer_url: 'tcp://reglab-l-indexer:50001',
        proxy_endpoint: 'rpc://reglab-l-proxy:3000/json-rpc',
        announce_addresses: [],
        announce_alias: 'rgb1',
      },
    ]);
  });

  it('uses BlockSync over bitcoind RPC with HEAD when the chain is bitcoind', async () => {
    const { node: state, client } = await node();
    await initAndUnlock(client, bitcoindLab, fast);
    expect(state.unlockBodies[0]).toMatchObject({
      ldk_chain_sync: {
        mode: 'BlockSync',
        config: {
          bitcoind_rpc_host: 'reglab-l-chain',
          bitcoind_rpc_port: 18443,
          bitcoind_rpc_username: 'u',
          bitcoind_rpc_password: 'p',
        },
      },
    });
  });

  it('says why an OLD RLN cannot follow a btcd chain', async () => {
    const { client } = await node({ unlockShape: 'old' });
    await expect(initAndUnlock(client, btcdLab, fast)).rejects.toThrow(/OLD \/unlock.*bitcoind RPC only/);
  });

  it('re-attaches to a node that is initialised and unlocked already (a restarted control plane)', async () => {
    const { node: state, client } = await node();
    await initAndUnlock(client, btcdLab, fast);
    const again = await initAndUnlock(client, btcdLab, fast);
    expect(again).toEqual({ mnemonic: undefined, shape: 'head' });
    expect(state.unlocked).toBe(true);
  });

  it('stops at once on a wrong password, saying what to do', async () => {
    const { client } = await node();
    await initAndUnlock(client, btcdLab, fast);
    const other = await node();
    await other.client.init('another-password');
    await expect(initAndUnlock(other.client, btcdLab, fast)).rejects.toThrow(
      /refused the lab's password.*remove the node's volume/,
    );
    expect(other.calls.filter((url) => url === '/unlock')).toHaveLength(1);
  });

  it('opens an asset channel: connect, wait for the tip, retry 403s, mine 6, wait until usable', async () => {
    const alice = await node({ openChannelBusyCalls: 2, syncDelayMs: 50 });
    const bob = await node();
    const chain = new FakeChain([alice.node, bob.node]);
    const { asset } = await bringUpRln(
      alice.client,
      chain,
      {
        unlock: btcdLab,
        fundingSat: 1_000_000n,
        asset: { ticker: 'USDT', name: 'Tether', precision: 0, amount: 1_000 },
      },
      fast,
    );
    await chain.mine(1); // a block the node has not synced yet when the channel is asked for
    const channel = await openAssetChannel(
      alice.client,
      chain,
      {
        peer: `${bob.double.pubkey}@reglab-l-bob:9735`,
        capacitySat: 50_000,
        pushMsat: 0,
        asset: { id: asset!.asset_id, amount: 600 },
      },
      fast,
    );
    expect(channel).toMatchObject({
      peer_pubkey: bob.double.pubkey,
      asset_id: asset!.asset_id,
      asset_local_amount: 600,
      ready: true,
      is_usable: true,
    });
    expect(alice.calls.filter((call) => call === '/openchannel')).toHaveLength(3);
    expect(alice.node.openHeights).toEqual([[chain.tip - 6, chain.tip - 6]]);
    expect(chain.mined.at(-1)).toBe(6);
    expect(alice.double.control.assets.get(asset!.asset_id)).toMatchObject({ spendable: 400, offchain_outbound: 600 });
  });

  it('refuses an RGB channel below 30010 sat before asking the node', async () => {
    const { double, node: state, calls, client } = await node();
    const chain = new FakeChain([state]);
    await expect(
      openAssetChannel(
        client,
        chain,
        { peer: `${double.pubkey}@x:9735`, capacitySat: 20_000, asset: { id: 'rgb:x', amount: 1 } },
        fast,
      ),
    ).rejects.toThrow(/at least 30010 sat/);
    expect(calls).toEqual([]);
  });

  it('runs the daemon on the container ports with regtest and its data in the volume', () => {
    expect(rlnArgs(dockerPlacement(layoutOf({ name: 'l', dir: '/x' }, { rgb1: 'rln' }), 'rgb1'))).toEqual([
      '/data',
      '--daemon-listening-port',
      '3001',
      '--ldk-peer-listening-port',
      '9735',
      '--network',
      'regtest',
      '--disable-authentication',
    ]);
  });
});
