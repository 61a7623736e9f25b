// CONTRACT DOUBLE of RGB Lightning Node's HTTP API — not RLN. RLN cannot be built or run on these
// machines (../shared/reference/rgb-lightning-node.md), so the wallet server's RLN gateway is tested
// against this small Fastify server written from RLN's published API shapes (HEAD): the endpoints
// the gateway uses, RLN's error body {error, code, name} with its status codes (PaymentNotFound and
// UnknownLNInvoice are 403, bad input 400), and real signed BOLT11 invoices carrying the RGB tagged
// fields 30/31. The `control` object is test-only and stands in for what other nodes would do.
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
    assets: Map<string, { settled: number; future: number; spendable: number; offchain_outbound: number; offchain_inbound: number }>;
    calls: string[];
  };
  close(): Promise<void>;
}

const rlnError = (reply: FastifyReply, code: number, name: string, error: string) => reply.status(code).send({ error, code, name });

export async function startRlnDouble(): Promise<RlnDouble> {
  const secretKey = utils.randomSecretKey();
  const pubkey = publicKeyHex(secretKey);
  const invoices = new Map<string, Invoice>();
  const payments = new Map<string, Payment>();
  const control: RlnDouble['control'] = {
    outcome: 'Succeeded',
    assets: new Map(),
    calls: [],
    payInvoice(paymentHash) {
      const inv = invoices.get(paymentHash);
      if (!inv || inv.status !== 'Pending') throw new Error(`no pending invoice ${paymentHash}`);
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

  app.get('/nodeinfo', async () => ({
    pubkey, num_channels: 1, num_usable_channels: 1, local_balance_sat: 400_000, pending_outbound_payments_sat: 0, num_peers: 1,
    rgb_htlc_min_msat: 3_000_000, rgb_channel_capacity_min_sat: 30_010, channel_capacity_min_sat: 5_506,
    channel_capacity_max_sat: 16_777_215, channel_asset_min_amount: 1, channel_asset_max_amount: 18_446_744_073_709_551_615,
    network_nodes: 2, network_channels: 1,
  }));
  app.get('/networkinfo', async () => ({ network: 'Regtest', height: 321 }));
  app.get('/listchannels', async () => ({
    channels: [{
      channel_id: 'a'.repeat(64), peer_pubkey: '02'.padEnd(66, '1'), status: 'Opened', ready: true, capacity_sat: 1_000_000,
      local_balance_sat: 400_000, outbound_balance_msat: 390_000_000, inbound_balance_msat: 590_000_000, is_usable: true, public: true,
    }],
  }));
  app.post('/btcbalance', async () => ({
    vanilla: { settled: 2_500_000, future: 2_500_000, spendable: 2_500_000 },
    colored: { settled: 320_000, future: 320_000, spendable: 320_000 },
  }));
  app.post<{ Body: { asset_id: string } }>('/assetbalance', async (request, reply) => {
    const b = control.assets.get(request.body.asset_id);
    return b ?? rlnError(reply, 403, 'UnknownContractId', 'Unknown RGB contract ID');
  });

  app.post<{ Body: { amt_msat?: number; expiry_sec: number; asset_id?: string; asset_amount?: number; description?: string } }>('/lninvoice', async (request, reply) => {
    const b = request.body;
    if ((b.asset_id == null) !== (b.asset_amount == null)) return rlnError(reply, 400, 'IncompleteRGBInfo', 'Incomplete RGB info');
    if (b.asset_id && (b.amt_msat ?? 0) < 3_000_000) return rlnError(reply, 400, 'InvalidAmount', 'Invalid amount: amt_msat cannot be less than 3000000 when transferring an RGB asset');
    if (b.asset_id && !control.assets.has(b.asset_id)) return rlnError(reply, 403, 'UnknownContractId', 'Unknown RGB contract ID');
    const preimage = randomBytes(32);
    const paymentHash = createHash('sha256').update(preimage).digest('hex');
    const timestamp = now();
    const invoice = await encodeBolt11({
      secretKey, paymentHash, amountMsat: b.amt_msat ? BigInt(b.amt_msat) : undefined, description: b.description, expirySec: b.expiry_sec,
      timestamp, asset: b.asset_id ? { assetId: b.asset_id, amount: BigInt(b.asset_amount!) } : undefined,
    });
    invoices.set(paymentHash, {
      invoice, paymentHash, amtMsat: b.amt_msat ?? null, expirySec: b.expiry_sec, timestamp, assetId: b.asset_id ?? null,
      assetAmount: b.asset_amount ?? null, status: 'Pending',
    });
    return { invoice };
  });

  /** The invoice's fields, or an RLN InvalidInvoice 400 already sent. */
  const parse = (invoice: string, reply: FastifyReply) => {
    try {
      const d = decode(invoice);
      const get = (name: string) => (d.sections.find((s) => s.name === name) as { value?: unknown } | undefined)?.value;
      return { paymentHash: get('payment_hash') as string, amtMsat: get('amount') ? Number(get('amount')) : null, timestamp: get('timestamp') as number, expiry: (get('expiry') as number | undefined) ?? 3600 };
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
      amt_msat: d.amtMsat, expiry_sec: d.expiry, timestamp: d.timestamp, asset_id: own?.assetId ?? null, asset_amount: own?.assetAmount ?? null,
      payment_hash: d.paymentHash, payment_secret: '07'.repeat(32), payee_pubkey: own ? pubkey : null, network: 'Regtest',
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
      amt_msat: amtMsat, asset_amount: null, asset_id: null, payment_hash: paymentHash, inbound: false, status: control.outcome,
      created_at: now(), updated_at: now(), payee_pubkey: payee, preimage: control.outcome === 'Succeeded' ? preimage ?? randomBytes(32).toString('hex') : null,
    };
    payments.set(paymentHash, p);
    return p;
  };

  app.post<{ Body: { invoice: string } }>('/sendpayment', async (request, reply) => {
    const d = parse(request.body.invoice, reply);
    if (!d) return reply;
    const p = outbound(d.paymentHash, d.amtMsat, '03'.padEnd(66, '2'), null);
    return { payment_id: randomBytes(32).toString('hex'), payment_hash: p.payment_hash, payment_secret: '07'.repeat(32), status: p.status };
  });

  app.post<{ Body: { dest_pubkey: string; amt_msat: number } }>('/keysend', async (request) => {
    const preimage = randomBytes(32).toString('hex');
    const hash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
    const p = outbound(hash, request.body.amt_msat, request.body.dest_pubkey, preimage);
    return { payment_hash: hash, payment_preimage: preimage, status: p.status };
  });

  app.post<{ Body: { payment_hash: string } }>('/getpayment', async (request, reply) => {
    const p = payments.get(request.body.payment_hash);
    return p ? { payment: p } : rlnError(reply, 403, 'PaymentNotFound', `Payment with hash ${request.body.payment_hash} not found`);
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, pubkey, app, control, close: () => app.close() };
}
