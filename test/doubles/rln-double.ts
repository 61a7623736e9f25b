// CONTRACT DOUBLE of RGB Lightning Node's HTTP API — not RLN. RLN cannot be built or run on these
// machines (../shared/reference/rgb-lightning-node.md), so the wallet server's RLN gateway is tested
// against this small Fastify server written from RLN's published API shapes (HEAD): the endpoints
// the gateway uses, RLN's error body {error, code, name} with its status codes (PaymentNotFound and
// UnknownLNInvoice are 403, bad input 400), and real signed BOLT11 invoices carrying the RGB tagged
// fields 30/31. The `control` object is test-only and stands in for what other nodes would do.
// With `lifecycle` options it also plays a node being brought up (the control plane's rln start
// sequence): not initialised and locked at first (/init, /unlock in RLN's HEAD or OLD body, 403
// "changing state" while unlocking), funds seen once confirmed, /createutxos, NIA issuance and
// asset channels usable after 6 confirmations; `control.node` plays the chain for it.
import { createHash, randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { utils } from '@noble/secp256k1';
import { decode } from 'light-bolt11-decoder';
import { encodeBolt11, publicKeyHex } from './bolt11-encode.js';

type Status = 'Pending' | 'Succeeded' | 'Failed';

interface Invoice {
  invoice: string;
  paymentHash: string;
  amtMsat: number | null;
  expirySec: number;
  timestamp: number;
  assetId: string | null;
  assetAmount: number | null;
  status: Status | 'Expired';
}

interface Payment {
  amt_msat: number | null;
  asset_amount: number | null;
  asset_id: string | null;
  payment_hash: string;
  inbound: boolean;
  status: Status;
  created_at: number;
  updated_at: number;
  payee_pubkey: string;
  preimage: string | null;
}

export interface RlnLifecycleOptions {
  /** Which /unlock body the node takes: HEAD (ldk_chain_sync) or OLD (bitcoind_rpc_*). */
  unlockShape?: 'head' | 'old';
  /** The first N /unlock calls answer 403 "changing state", as RLN does while it starts LDK. */
  unlockBusyCalls?: number;
  /** The first N acceptable /openchannel calls answer 403. */
  openChannelBusyCalls?: number;
  /** How long the node takes to follow a new chain height (its /networkinfo lags by this). */
  syncDelayMs?: number;
}

export interface RlnDoubleOptions {
  /** Start as a fresh node (not initialised, locked) with the bring-up endpoints' rules. */
  lifecycle?: RlnLifecycleOptions;
}

interface OpenedChannel {
  channel_id: string;
  peer_pubkey: string;
  capacity_sat: number;
  asset_id: string | null;
  asset_local_amount: number | null;
  openedAt: number;
}

/** The node's own state in lifecycle mode, and the chain's side of it. */
export interface RlnNodeControl {
  initialised: boolean;
  unlocked: boolean;
  /** The height the node has synced to (follows the chain after syncDelayMs). */
  height: number;
  chainHeight: number;
  coloredUtxos: number;
  peers: Set<string>;
  channels: OpenedChannel[];
  unlockBodies: unknown[];
  /** [node height, chain height] at each accepted /openchannel. */
  openHeights: Array<[number, number]>;
  newAddress(): string;
  owns(address: string): boolean;
  /** The chain paid `sat` to one of the node's addresses (unconfirmed until the next block). */
  receive(address: string, sat: number): void;
  /** The chain reached `height`: pending payments confirm; the node syncs after syncDelayMs. */
  setChainHeight(height: number): void;
  confirmedSat(): number;
}

export interface RlnDouble {
  url: string;
  pubkey: string;
  app: FastifyInstance;
  control: {
    /** What /sendpayment and /keysend do with the next payments. */
    outcome: Status;
    /** An outside node pays one of our invoices. */
    payInvoice(paymentHash: string): void;
    /** The network's final answer for an outbound payment left Pending. */
    resolvePayment(paymentHash: string, status: 'Succeeded' | 'Failed'): void;
    assets: Map<
      string,
      { settled: number; future: number; spendable: number; offchain_outbound: number; offchain_inbound: number }
    >;
    calls: string[];
    node: RlnNodeControl;
  };
  close(): Promise<void>;
}

const rlnError = (reply: FastifyReply, code: number, name: string, error: string) =>
  reply.status(code).send({ error, code, name });

export async function startRlnDouble(options: RlnDoubleOptions = {}): Promise<RlnDouble> {
  const secretKey = utils.randomSecretKey();
  const pubkey = publicKeyHex(secretKey);
  const invoices = new Map<string, Invoice>();
  const payments = new Map<string, Payment>();
  const lifecycle = options.lifecycle;
  const addresses = new Set<string>();
  const funds: Array<{ sat: number; height?: number }> = [];
  const node: RlnNodeControl = {
    initialised: !lifecycle,
    unlocked: !lifecycle,
    height: lifecycle ? 0 : 321,
    chainHeight: lifecycle ? 0 : 321,
    coloredUtxos: 0,
    peers: new Set(),
    channels: [],
    unlockBodies: [],
    openHeights: [],
    newAddress() {
      const address = `bcrt1q${randomBytes(19).toString('hex')}`;
      addresses.add(address);
      return address;
    },
    owns: (address) => addresses.has(address),
    receive(address, sat) {
      if (!addresses.has(address)) throw new Error(`the RLN double never gave out ${address}`);
      funds.push({ sat });
    },
    setChainHeight(height) {
      node.chainHeight = height;
      for (const fund of funds) fund.height ??= height;
      const sync = () => (node.height = Math.max(node.height, height));
      if (lifecycle?.syncDelayMs) setTimeout(sync, lifecycle.syncDelayMs).unref();
      else sync();
    },
    confirmedSat: () =>
      funds
        .filter((fund) => fund.height !== undefined && fund.height <= node.height)
        .reduce((sum, fund) => sum + fund.sat, 0),
  };
  const control: RlnDouble['control'] = {
    outcome: 'Succeeded',
    assets: new Map(),
    calls: [],
    node,
    payInvoice(paymentHash) {
      const inv = invoices.get(paymentHash);
      if (inv?.status !== 'Pending') throw new Error(`no pending invoice ${paymentHash}`);
      inv.status = 'Succeeded';
    },
    resolvePayment(paymentHash, status) {
      const p = payments.get(paymentHash);
      if (!p) throw new Error(`no payment ${paymentHash}`);
      p.status = status;
      if (status === 'Succeeded') p.preimage ??= randomBytes(32).toString('hex');
      p.updated_at = Math.floor(Date.now() / 1000);
    },
  };
  const now = () => Math.floor(Date.now() / 1000);
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (request) => {
    control.calls.push(request.url);
  });
  if (lifecycle) addLifecycle(app, node, control.assets, lifecycle);

  app.get('/nodeinfo', async () => ({
    pubkey,
    num_channels: 1,
    num_usable_channels: 1,
    local_balance_sat: 400_000,
    pending_outbound_payments_sat: 0,
    num_peers: 1,
    rgb_htlc_min_msat: 3_000_000,
    rgb_channel_capacity_min_sat: 30_010,
    channel_capacity_min_sat: 5_506,
    channel_capacity_max_sat: 16_777_215,
    channel_asset_min_amount: 1,
    // RLN answers u64::MAX, which JSON.parse cannot hold exactly either
    channel_asset_max_amount: Number.MAX_SAFE_INTEGER,
    network_nodes: 2,
    network_channels: 1,
  }));
  app.get('/networkinfo', async () => ({ network: 'Regtest', height: node.height }));
  app.get('/listchannels', async () => ({
    channels: lifecycle
      ? node.channels.map((channel) => channelView(node, channel))
      : [
          {
            channel_id: 'a'.repeat(64),
            peer_pubkey: '02'.padEnd(66, '1'),
            status: 'Opened',
            ready: true,
            capacity_sat: 1_000_000,
            local_balance_sat: 400_000,
            outbound_balance_msat: 390_000_000,
            inbound_balance_msat: 590_000_000,
            is_usable: true,
            public: true,
          },
        ],
  }));
  app.post('/btcbalance', async () => ({
    vanilla: { settled: 2_500_000, future: 2_500_000, spendable: 2_500_000 },
    colored: { settled: 320_000, future: 320_000, spendable: 320_000 },
  }));
  app.post<{ Body: { asset_id: string } }>('/assetbalance', async (request, reply) => {
    const b = control.assets.get(request.body.asset_id);
    return b ?? rlnError(reply, 403, 'UnknownContractId', 'Unknown RGB contract ID');
  });

  app.post<{
    Body: { amt_msat?: number; expiry_sec: number; asset_id?: string; asset_amount?: number; description?: string };
  }>('/lninvoice', async (request, reply) => {
    const b = request.body;
    if ((b.asset_id == null) !== (b.asset_amount == null))
      return rlnError(reply, 400, 'IncompleteRGBInfo', 'Incomplete RGB info');
    if (b.asset_id && (b.amt_msat ?? 0) < 3_000_000)
      return rlnError(
        reply,
        400,
        'InvalidAmount',
        'Invalid amount: amt_msat cannot be less than 3000000 when transferring an RGB asset',
      );
    if (b.asset_id && !control.assets.has(b.asset_id))
      return rlnError(reply, 403, 'UnknownContractId', 'Unknown RGB contract ID');
    const preimage = randomBytes(32);
    const paymentHash = createHash('sha256').update(preimage).digest('hex');
    const timestamp = now();
    const invoice = await encodeBolt11({
      secretKey,
      paymentHash,
      amountMsat: b.amt_msat ? BigInt(b.amt_msat) : undefined,
      description: b.description,
      expirySec: b.expiry_sec,
      timestamp,
      asset: b.asset_id ? { assetId: b.asset_id, amount: BigInt(b.asset_amount!) } : undefined,
    });
    invoices.set(paymentHash, {
      invoice,
      paymentHash,
      amtMsat: b.amt_msat ?? null,
      expirySec: b.expiry_sec,
      timestamp,
      assetId: b.asset_id ?? null,
      assetAmount: b.asset_amount ?? null,
      status: 'Pending',
    });
    return { invoice };
  });

  /** The invoice's fields, or an RLN InvalidInvoice 400 already sent. */
  const parse = (invoice: string, reply: FastifyReply) => {
    try {
      const d = decode(invoice);
      const get = (name: string) => (d.sections.find((s) => s.name === name) as { value?: unknown } | undefined)?.value;
      return {
        paymentHash: get('payment_hash') as string,
        amtMsat: get('amount') ? Number(get('amount')) : null,
        timestamp: get('timestamp') as number,
        expiry: (get('expiry') as number | undefined) ?? 3600,
      };
    } catch (err) {
      void rlnError(reply, 400, 'InvalidInvoice', `Invalid invoice: ${(err as Error).message}`);
      return null;
    }
  };

  app.post<{ Body: { invoice: string } }>('/decodelninvoice', async (request, reply) => {
    const d = parse(request.body.invoice, reply);
    if (!d) return reply;
    const own = invoices.get(d.paymentHash);
    return {
      amt_msat: d.amtMsat,
      expiry_sec: d.expiry,
      timestamp: d.timestamp,
      asset_id: own?.assetId ?? null,
      asset_amount: own?.assetAmount ?? null,
      payment_hash: d.paymentHash,
      payment_secret: '07'.repeat(32),
      payee_pubkey: own ? pubkey : null,
      network: 'Regtest',
    };
  });

  app.post<{ Body: { invoice: string } }>('/invoicestatus', async (request, reply) => {
    const inv = [...invoices.values()].find((i) => i.invoice === request.body.invoice);
    if (!inv) return rlnError(reply, 403, 'UnknownLNInvoice', 'Unknown LN invoice');
    if (inv.status === 'Pending' && now() > inv.timestamp + inv.expirySec) inv.status = 'Expired';
    return { status: inv.status };
  });

  const outbound = (paymentHash: string, amtMsat: number | null, payee: string, preimage: string | null): Payment => {
    const p: Payment = {
      amt_msat: amtMsat,
      asset_amount: null,
      asset_id: null,
      payment_hash: paymentHash,
      inbound: false,
      status: control.outcome,
      created_at: now(),
      updated_at: now(),
      payee_pubkey: payee,
      preimage: control.outcome === 'Succeeded' ? (preimage ?? randomBytes(32).toString('hex')) : null,
    };
    payments.set(paymentHash, p);
    return p;
  };

  app.post<{ Body: { invoice: string } }>('/sendpayment', async (request, reply) => {
    const d = parse(request.body.invoice, reply);
    if (!d) return reply;
    const p = outbound(d.paymentHash, d.amtMsat, '03'.padEnd(66, '2'), null);
    return {
      payment_id: randomBytes(32).toString('hex'),
      payment_hash: p.payment_hash,
      payment_secret: '07'.repeat(32),
      status: p.status,
    };
  });

  app.post<{ Body: { dest_pubkey: string; amt_msat: number } }>('/keysend', async (request) => {
    const preimage = randomBytes(32).toString('hex');
    const hash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
    const p = outbound(hash, request.body.amt_msat, request.body.dest_pubkey, preimage);
    return { payment_hash: hash, payment_preimage: preimage, status: p.status };
  });

  app.post<{ Body: { payment_hash: string } }>('/getpayment', async (request, reply) => {
    const p = payments.get(request.body.payment_hash);
    return p
      ? { payment: p }
      : rlnError(reply, 403, 'PaymentNotFound', `Payment with hash ${request.body.payment_hash} not found`);
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, pubkey, app, control, close: () => app.close() };
}

const usable = (node: RlnNodeControl, channel: OpenedChannel) => node.height - channel.openedAt >= 6;

function channelView(node: RlnNodeControl, channel: OpenedChannel) {
  const ready = usable(node, channel);
  return {
    channel_id: channel.channel_id,
    peer_pubkey: channel.peer_pubkey,
    status: ready ? 'Opened' : 'Opening',
    ready,
    is_usable: ready,
    capacity_sat: channel.capacity_sat,
    local_balance_sat: channel.capacity_sat,
    public: true,
    asset_id: channel.asset_id,
    asset_local_amount: channel.asset_local_amount,
    asset_remote_amount: channel.asset_id ? 0 : null,
  };
}

/** The bring-up endpoints with RLN's lifecycle rules (src/error.rs: statuses and texts). */
function addLifecycle(
  app: FastifyInstance,
  node: RlnNodeControl,
  assets: RlnDouble['control']['assets'],
  options: RlnLifecycleOptions,
): void {
  let unlockBusy = options.unlockBusyCalls ?? 0;
  let openBusy = options.openChannelBusyCalls ?? 0;
  const missingField = (reply: FastifyReply, field: string) =>
    reply
      .code(422)
      .type('text/plain')
      .send(`Failed to deserialize the JSON body into the target type: missing field \`${field}\` at line 1 column 2`);

  app.addHook('preHandler', async (request, reply) => {
    if (request.url === '/init' || request.url === '/unlock') return;
    if (!node.initialised)
      return rlnError(reply, 403, 'NotInitialized', 'Wallet has not been initialized (hint: call init)');
    if (!node.unlocked) return rlnError(reply, 403, 'LockedNode', 'Node is locked (hint: call unlock)');
  });

  let password: string | undefined;
  app.post<{ Body: { password?: string } }>('/init', async (request, reply) => {
    if (node.initialised) return rlnError(reply, 403, 'AlreadyInitialized', 'Node has already been initialized');
    const given = request.body?.password;
    if (given === undefined) return missingField(reply, 'password');
    if (given.length < 8)
      return rlnError(reply, 400, 'InvalidPassword', 'Invalid password: must have at least 8 chars');
    password = given;
    node.initialised = true;
    return { mnemonic: `${'abandon '.repeat(11)}about` };
  });

  app.post<{ Body: Record<string, unknown> }>('/unlock', async (request, reply) => {
    const body = request.body ?? {};
    if (!node.initialised)
      return rlnError(reply, 403, 'NotInitialized', 'Wallet has not been initialized (hint: call init)');
    if (node.unlocked) return rlnError(reply, 403, 'UnlockedNode', 'Node is unlocked (hint: call lock)');
    const required =
      options.unlockShape === 'old'
        ? [
            'password',
            'bitcoind_rpc_username',
            'bitcoind_rpc_password',
            'bitcoind_rpc_host',
            'bitcoind_rpc_port',
            'announce_addresses',
          ]
        : ['password', 'ldk_chain_sync', 'indexer_url', 'announce_addresses'];
    const missing = required.find((field) => !(field in body));
    if (missing) return missingField(reply, missing);
    if (body.password !== password) return rlnError(reply, 401, 'WrongPassword', 'The provided password is incorrect');
    if (unlockBusy > 0) {
      unlockBusy--;
      return rlnError(reply, 403, 'ChangingState', 'Cannot call other APIs while node is changing state');
    }
    node.unlockBodies.push(body);
    node.unlocked = true;
    return {};
  });

  app.post('/address', async () => ({ address: node.newAddress() }));

  app.post<{ Body: { num?: number; size?: number } }>('/createutxos', async (request, reply) => {
    const needed = (request.body?.num ?? 4) * (request.body?.size ?? 32_000) + 1_000;
    if (node.confirmedSat() < needed)
      return rlnError(reply, 403, 'InsufficientFunds', `Not enough funds, call getaddress and send ${needed} satoshis`);
    node.coloredUtxos += request.body?.num ?? 4;
    return {};
  });

  app.post<{ Body: { amounts?: number[]; ticker?: string; name?: string; precision?: number } }>(
    '/issueassetnia',
    async (request, reply) => {
      const { amounts, ticker, name, precision } = request.body ?? {};
      if (!amounts || ticker === undefined || name === undefined || precision === undefined)
        return missingField(reply, 'amounts');
      if (!/^[A-Z]{1,8}$/.test(ticker)) return rlnError(reply, 400, 'InvalidTicker', `Invalid ticker: ${ticker}`);
      if (precision < 0 || precision > 18)
        return rlnError(reply, 400, 'InvalidPrecision', `Invalid precision: ${precision}`);
      if (node.coloredUtxos === 0)
        return rlnError(reply, 403, 'NoAvailableUtxos', 'No uncolored UTXOs are available (hint: call createutxos)');
      const assetId = `rgb:${randomBytes(12).toString('base64url')}`;
      const supply = amounts.reduce((sum, amount) => sum + amount, 0);
      assets.set(assetId, {
        settled: supply,
        future: supply,
        spendable: supply,
        offchain_outbound: 0,
        offchain_inbound: 0,
      });
      node.coloredUtxos--;
      const now = Math.floor(Date.now() / 1000);
      return {
        asset: {
          asset_id: assetId,
          ticker,
          name,
          precision,
          issued_supply: supply,
          timestamp: now,
          added_at: now,
          balance: { settled: supply, future: supply, spendable: supply },
        },
      };
    },
  );

  app.post<{ Body: { peer_pubkey_and_addr?: string } }>('/connectpeer', async (request, reply) => {
    const peer = request.body?.peer_pubkey_and_addr ?? '';
    const match = /^([0-9a-f]{66})@[^:]+:\d+$/.exec(peer);
    if (!match) return rlnError(reply, 400, 'InvalidPeerInfo', `Invalid peer info: ${peer}`);
    node.peers.add(match[1]);
    return {};
  });

  app.post<{
    Body: {
      peer_pubkey_and_opt_addr?: string;
      capacity_sat?: number;
      push_msat?: number;
      asset_id?: string;
      asset_amount?: number;
      with_anchors?: boolean;
      public?: boolean;
    };
  }>('/openchannel', async (request, reply) => {
    const body = request.body ?? {};
    const peer = (body.peer_pubkey_and_opt_addr ?? '').split('@')[0];
    if (!node.peers.has(peer))
      return rlnError(reply, 400, 'InvalidPeerInfo', `Invalid peer info: not connected to ${peer}`);
    if (
      body.capacity_sat === undefined ||
      body.push_msat === undefined ||
      body.with_anchors === undefined ||
      body.public === undefined
    )
      return missingField(reply, 'capacity_sat');
    if ((body.asset_id === undefined) !== (body.asset_amount === undefined))
      return rlnError(reply, 400, 'IncompleteRGBInfo', 'Incomplete RGB info');
    if (body.asset_id !== undefined) {
      if (body.capacity_sat < 30_010)
        return rlnError(reply, 400, 'InvalidAmount', 'Invalid amount: an RGB channel needs at least 30010 sat');
      if (!body.with_anchors) return rlnError(reply, 400, 'AnchorsRequired', 'RGB channels require anchors');
      const balance = assets.get(body.asset_id);
      if (!balance) return rlnError(reply, 403, 'UnknownContractId', 'Unknown RGB contract ID');
      if (balance.spendable < body.asset_amount!)
        return rlnError(reply, 403, 'InsufficientAssets', `Not enough assets, available: ${balance.spendable}`);
    }
    if (node.coloredUtxos === 0)
      return rlnError(reply, 403, 'NoAvailableUtxos', 'No uncolored UTXOs are available (hint: call createutxos)');
    if (openBusy > 0) {
      openBusy--;
      return rlnError(reply, 403, 'ChangingState', 'Cannot call other APIs while node is changing state');
    }
    if (body.asset_id !== undefined) {
      const balance = assets.get(body.asset_id)!;
      balance.settled -= body.asset_amount!;
      balance.future -= body.asset_amount!;
      balance.spendable -= body.asset_amount!;
      balance.offchain_outbound += body.asset_amount!;
    }
    node.coloredUtxos--;
    node.openHeights.push([node.height, node.chainHeight]);
    const id = randomBytes(32).toString('hex');
    node.channels.push({
      channel_id: id,
      peer_pubkey: peer,
      capacity_sat: body.capacity_sat,
      asset_id: body.asset_id ?? null,
      asset_local_amount: body.asset_amount ?? null,
      openedAt: node.chainHeight,
    });
    return { temporary_channel_id: id };
  });
}
