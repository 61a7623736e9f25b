// CONTRACT DOUBLE of RGB Lightning Node's HTTP API — NOT RLN. Written from RLN's published API
// (openapi.yaml, src/error.rs; summarised in ../shared/reference/rgb-lightning-node.md) because RLN
// cannot be built or run on these machines. It keeps the node's lifecycle rules (init, locked,
// unlock in HEAD or OLD shape, "changing state"), on-chain funding seen only once confirmed,
// colored UTXOs, NIA issuance and asset channels that become usable after 6 confirmations, with
// RLN's status codes and error texts. Extend it here (one double for every test of RLN clients).
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

export interface RlnDoubleOptions {
  /** Which /unlock body the double accepts: HEAD (ldk_chain_sync) or OLD (bitcoind_rpc_*). */
  unlockShape?: 'head' | 'old';
  /** The first N /unlock calls answer 403 "changing state", as RLN does while it starts LDK. */
  unlockBusyCalls?: number;
  /** The first N /openchannel calls answer 403 (the node not yet ready to fund a channel). */
  openChannelBusyCalls?: number;
  /** How long the node takes to follow a new chain height (its /networkinfo lags by this). */
  syncDelayMs?: number;
}

interface Channel {
  channel_id: string;
  peer_pubkey: string;
  capacity_sat: number;
  asset_id: string | null;
  asset_local_amount: number | null;
  openedAt: number;
}

/** Errors with RLN's status and text (src/error.rs). */
const errors = {
  alreadyInitialized: [403, 'Node has already been initialized'],
  changingState: [403, 'Cannot call other APIs while node is changing state'],
  locked: [403, 'Node is locked (hint: call unlock)'],
  notInitialized: [403, 'Wallet has not been initialized (hint: call init)'],
  unlocked: [403, 'Node is unlocked (hint: call lock)'],
  noUtxos: [403, 'No uncolored UTXOs are available (hint: call createutxos)'],
  wrongPassword: [401, 'The provided password is incorrect'],
} as const;

export class RlnDouble {
  readonly pubkey = `02${randomBytes(32).toString('hex')}`;
  readonly calls: string[] = [];
  readonly unlockBodies: unknown[] = [];
  /** [node height, chain height] at each accepted /openchannel. */
  readonly openHeights: Array<[number, number]> = [];
  password?: string;
  unlocked = false;
  /** The chain tip, as the test's chain sets it. */
  chainHeight = 0;
  /** The height the node has synced to (follows chainHeight after syncDelayMs). */
  nodeHeight = 0;
  coloredUtxos = 0;
  readonly peers = new Set<string>();
  readonly assets = new Map<string, { ticker: string; name: string; precision: number; balance: number }>();
  readonly channels: Channel[] = [];
  private readonly addresses = new Set<string>();
  /** Payments to the node's addresses: amount and the height they confirmed at (undefined: mempool). */
  private readonly funds: Array<{ sat: number; height?: number }> = [];
  private unlockBusy: number;
  private openBusy: number;

  constructor(readonly options: RlnDoubleOptions = {}) {
    this.unlockBusy = options.unlockBusyCalls ?? 0;
    this.openBusy = options.openChannelBusyCalls ?? 0;
  }

  owns(address: string): boolean {
    return this.addresses.has(address);
  }

  /** The test's chain paid `sat` to `address` (unconfirmed until the next mined block). */
  receive(address: string, sat: number): void {
    if (!this.owns(address)) throw new Error(`the RLN double never gave out ${address}`);
    this.funds.push({ sat });
  }

  /** The test's chain mined up to `height`: pending payments confirm, the node syncs after a delay. */
  setChainHeight(height: number): void {
    this.chainHeight = height;
    for (const fund of this.funds) fund.height ??= height;
    const sync = () => (this.nodeHeight = Math.max(this.nodeHeight, height));
    if (this.options.syncDelayMs) setTimeout(sync, this.options.syncDelayMs).unref();
    else sync();
  }

  confirmedSat(): number {
    return this.funds.filter((fund) => fund.height !== undefined && fund.height <= this.nodeHeight).reduce((sum, fund) => sum + fund.sat, 0);
  }

  app(): FastifyInstance {
    const app = Fastify();
    const fail = (reply: FastifyReply, [status, error]: readonly [number, string]) => reply.code(status).send({ error, code: status });
    const missingField = (reply: FastifyReply, field: string) =>
      reply.code(422).type('text/plain').send(`Failed to deserialize the JSON body into the target type: missing field \`${field}\` at line 1 column 2`);

    app.addHook('onRequest', async (request) => {
      this.calls.push(request.url);
    });
    // every call but /init and /unlock needs an initialised, unlocked node
    app.addHook('preHandler', async (request, reply) => {
      if (request.url === '/init' || request.url === '/unlock') return;
      if (this.password === undefined) return fail(reply, errors.notInitialized);
      if (!this.unlocked) return fail(reply, errors.locked);
    });

    app.post<{ Body: { password?: string; mnemonic?: string } }>('/init', async (request, reply) => {
      if (this.password !== undefined) return fail(reply, errors.alreadyInitialized);
      const password = request.body?.password;
      if (password === undefined) return missingField(reply, 'password');
      if (password.length < 8) return fail(reply, [400, 'Invalid password: must have at least 8 chars']);
      this.password = password;
      return { mnemonic: 'abandon '.repeat(11) + 'about' };
    });

    app.post<{ Body: Record<string, unknown> }>('/unlock', async (request, reply) => {
      const body = request.body ?? {};
      if (this.password === undefined) return fail(reply, errors.notInitialized);
      if (this.unlocked) return fail(reply, errors.unlocked);
      const required = this.options.unlockShape === 'old' ? ['password', 'bitcoind_rpc_username', 'bitcoind_rpc_password', 'bitcoind_rpc_host', 'bitcoind_rpc_port', 'announce_addresses'] : ['password', 'ldk_chain_sync', 'indexer_url', 'announce_addresses'];
      const missing = required.find((field) => !(field in body));
      if (missing) return missingField(reply, missing);
      if (body.password !== this.password) return fail(reply, errors.wrongPassword);
      if (this.unlockBusy > 0) {
        this.unlockBusy--;
        return fail(reply, errors.changingState);
      }
      this.unlockBodies.push(body);
      this.unlocked = true;
      return {};
    });

    app.get('/nodeinfo', async () => ({
      pubkey: this.pubkey,
      num_channels: this.channels.length,
      num_usable_channels: this.channels.filter((channel) => this.usable(channel)).length,
      num_peers: this.peers.size,
      local_balance_sat: 0,
    }));
    app.get('/networkinfo', async () => ({ network: 'Regtest', height: this.nodeHeight }));

    app.post('/address', async () => {
      const address = `bcrt1q${randomBytes(20).toString('hex').slice(0, 38)}`;
      this.addresses.add(address);
      return { address };
    });

    app.post('/btcbalance', async () => {
      const settled = this.confirmedSat();
      return { vanilla: { settled, future: settled, spendable: settled }, colored: { settled: 0, future: 0, spendable: 0 } };
    });

    app.post<{ Body: { num?: number; size?: number; fee_rate?: number } }>('/createutxos', async (request, reply) => {
      const num = request.body?.num ?? 4;
      const size = request.body?.size ?? 32_000;
      const needed = num * size + 1_000;
      if (this.confirmedSat() < needed) return fail(reply, [403, `Not enough funds, call getaddress and send ${needed} satoshis`]);
      this.coloredUtxos += num;
      return {};
    });

    app.post<{ Body: { amounts?: number[]; ticker?: string; name?: string; precision?: number } }>('/issueassetnia', async (request, reply) => {
      const { amounts, ticker, name, precision } = request.body ?? {};
      if (!amounts || ticker === undefined || name === undefined || precision === undefined) return missingField(reply, 'amounts');
      if (!/^[A-Z]{1,8}$/.test(ticker)) return fail(reply, [400, `Invalid ticker: ${ticker}`]);
      if (precision < 0 || precision > 18) return fail(reply, [400, `Invalid precision: ${precision}`]);
      if (this.coloredUtxos === 0) return fail(reply, errors.noUtxos);
      const assetId = `rgb:${randomBytes(12).toString('base64url')}`;
      const supply = amounts.reduce((sum, amount) => sum + amount, 0);
      this.assets.set(assetId, { ticker, name, precision, balance: supply });
      this.coloredUtxos--;
      return { asset: { asset_id: assetId, ticker, name, precision, issued_supply: supply, timestamp: Math.floor(Date.now() / 1000), added_at: Math.floor(Date.now() / 1000), balance: { settled: supply, future: supply, spendable: supply } } };
    });

    app.post<{ Body: { peer_pubkey_and_addr?: string } }>('/connectpeer', async (request, reply) => {
      const peer = request.body?.peer_pubkey_and_addr ?? '';
      const match = /^([0-9a-f]{66})@[^:]+:\d+$/.exec(peer);
      if (!match) return fail(reply, [400, `Invalid peer info: ${peer}`]);
      this.peers.add(match[1]);
      return {};
    });

    app.post<{ Body: { peer_pubkey_and_opt_addr?: string; capacity_sat?: number; push_msat?: number; asset_id?: string; asset_amount?: number; with_anchors?: boolean; public?: boolean } }>('/openchannel', async (request, reply) => {
      const body = request.body ?? {};
      const pubkey = (body.peer_pubkey_and_opt_addr ?? '').split('@')[0];
      if (!this.peers.has(pubkey)) return fail(reply, [400, `Invalid peer info: not connected to ${pubkey}`]);
      if (body.capacity_sat === undefined || body.push_msat === undefined || body.with_anchors === undefined || body.public === undefined) return missingField(reply, 'capacity_sat');
      if ((body.asset_id === undefined) !== (body.asset_amount === undefined)) return fail(reply, [400, 'Invalid amount: asset_id and asset_amount go together']);
      if (body.asset_id !== undefined) {
        if (body.capacity_sat < 30_010) return fail(reply, [400, 'Invalid amount: an RGB channel needs at least 30010 sat']);
        if (!body.with_anchors) return fail(reply, [400, 'Invalid amount: RGB channels need anchors']);
        const asset = this.assets.get(body.asset_id);
        if (!asset) return fail(reply, [403, 'Unknown RGB contract ID']);
        if (asset.balance < body.asset_amount!) return fail(reply, [403, `Not enough assets, available: ${asset.balance}`]);
      }
      if (this.coloredUtxos === 0) return fail(reply, errors.noUtxos);
      if (this.openBusy > 0) {
        this.openBusy--;
        return fail(reply, errors.changingState);
      }
      if (body.asset_id !== undefined) this.assets.get(body.asset_id)!.balance -= body.asset_amount!;
      this.coloredUtxos--;
      this.openHeights.push([this.nodeHeight, this.chainHeight]);
      const id = randomBytes(32).toString('hex');
      this.channels.push({ channel_id: id, peer_pubkey: pubkey, capacity_sat: body.capacity_sat, asset_id: body.asset_id ?? null, asset_local_amount: body.asset_amount ?? null, openedAt: this.chainHeight });
      return { temporary_channel_id: id };
    });

    app.get('/listchannels', async () => ({
      channels: this.channels.map((channel) => {
        const usable = this.usable(channel);
        return {
          channel_id: channel.channel_id,
          peer_pubkey: channel.peer_pubkey,
          status: usable ? 'Opened' : 'Opening',
          ready: usable,
          is_usable: usable,
          capacity_sat: channel.capacity_sat,
          local_balance_sat: channel.capacity_sat,
          public: true,
          asset_id: channel.asset_id,
          asset_local_amount: channel.asset_local_amount,
          asset_remote_amount: channel.asset_id ? 0 : null,
        };
      }),
    }));
    return app;
  }

  private usable(channel: Channel): boolean {
    return this.nodeHeight - channel.openedAt >= 6;
  }
}

export async function startRlnDouble(options: RlnDoubleOptions = {}): Promise<{ double: RlnDouble; url: string; close(): Promise<void> }> {
  const double = new RlnDouble(options);
  const app = double.app();
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { double, url: address, close: () => app.close() };
}
