// RGB Lightning Node over its HTTP JSON API (shapes from ../shared/reference/rgb-lightning-node.md,
// RLN HEAD). RLN reports no routing fee and takes no fee limit; it has no invoice stream and no
// invoice cancel: the server polls invoice status and cancel is a no-op.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  connectionNeverMade,
  NodeError,
  NodeRejected,
  NodeUnreachable,
  type AssetBalance,
  type CreateInvoiceInput,
  type CreatedInvoice,
  type DecodedInvoice,
  type InvoiceState,
  type KeysendInput,
  type NodeGateway,
  type NodeInfo,
  type PayInvoiceInput,
  type PaymentLookup,
  type PaymentOutcome,
} from './gateway.js';

export interface RlnOptions {
  url: string;
  /** Bearer token when RLN runs with --root-public-key. */
  token?: string;
  /** How often a pending payment is asked about. */
  pollMs?: number;
  timeoutMs?: number;
}

type RlnStatus = 'Pending' | 'Succeeded' | 'Failed';

interface RlnPayment {
  amt_msat?: number | null;
  payment_hash: string;
  inbound: boolean;
  status: RlnStatus;
  preimage?: string | null;
}

interface RlnDecoded {
  amt_msat?: number | null;
  expiry_sec: number;
  timestamp: number;
  asset_id?: string | null;
  asset_amount?: number | null;
  payment_hash: string;
  network: string;
}

/** RLN answered with an error body {error, code, name}. */
class RlnHttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorName: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

const n = (v: number | string | null | undefined) => BigInt(v ?? 0);

function outcomeOf(p: RlnPayment): PaymentOutcome {
  if (p.status === 'Succeeded') return { status: 'succeeded', feeMsat: 0n, preimage: p.preimage ?? null };
  if (p.status === 'Failed') return { status: 'failed', error: 'RLN reports the payment failed' };
  return { status: 'pending' };
}

export class RlnGateway implements NodeGateway {
  readonly kind = 'rln' as const;
  readonly supportsAssets = true;
  readonly keysendPreimageFromCaller = false;
  private closed = false;
  private readonly pollMs: number;
  private readonly timeoutMs: number;

  constructor(private readonly options: RlnOptions) {
    this.pollMs = options.pollMs ?? 500;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(new URL(path, this.options.url), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const message = `RLN at ${this.options.url} is unreachable (${path}): ${(err as Error).message}`;
      throw connectionNeverMade(err)
        ? new NodeUnreachable(message, { cause: err })
        : new NodeError(message, { cause: err });
    }
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) {
      throw new RlnHttpError(
        res.status,
        json.name as string | undefined,
        `RLN ${path} answered ${res.status}: ${String(json.error ?? text)}`,
      );
    }
    return json as T;
  }

  /** RLN errors of the caller's input (4xx other than a locked/uninitialised node) become NodeRejected. */
  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    try {
      return await this.request<T>(method, path, body);
    } catch (err) {
      if (err instanceof RlnHttpError && err.status === 400) throw new NodeRejected('NODE_REJECTED', err.message);
      // RLN answers an asset id it does not know with 403 UnknownContractId: the caller's input, not a node failure.
      if (err instanceof RlnHttpError && err.errorName === 'UnknownContractId')
        throw new NodeRejected('INVALID_ASSET', err.message);
      if (err instanceof RlnHttpError) throw new NodeError(err.message, { cause: err });
      throw err;
    }
  }

  async info(): Promise<NodeInfo> {
    const [node, net, { channels }] = await Promise.all([
      this.call<{ pubkey: string; num_peers: number }>('GET', '/nodeinfo'),
      this.call<{ height: number }>('GET', '/networkinfo'),
      this.call<{ channels: Array<{ status: string; is_usable: boolean }> }>('GET', '/listchannels'),
    ]);
    const active = channels.filter((c) => c.is_usable).length;
    const pending = channels.filter((c) => c.status === 'Opening').length;
    return {
      kind: this.kind,
      alias: null,
      pubkey: node.pubkey,
      synced: true,
      height: net.height,
      peers: node.num_peers,
      channels: { active, pending, inactive: channels.length - active - pending },
    };
  }

  async balances() {
    const [btc, node] = await Promise.all([
      this.call<{ vanilla: { settled: number } }>('POST', '/btcbalance', { skip_sync: true }),
      this.call<{ local_balance_sat: number }>('GET', '/nodeinfo'),
    ]);
    return { onchainSat: n(btc.vanilla.settled), lightningLocalMsat: n(node.local_balance_sat) * 1000n };
  }

  async assetBalances(assetIds: string[]): Promise<AssetBalance[]> {
    return Promise.all(
      assetIds.map(async (assetId) => {
        const b = await this.call<Record<string, number>>('POST', '/assetbalance', { asset_id: assetId });
        return {
          assetId,
          settled: n(b.settled),
          future: n(b.future),
          spendable: n(b.spendable),
          offchainOutbound: n(b.offchain_outbound),
          offchainInbound: n(b.offchain_inbound),
        };
      }),
    );
  }

  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    if (input.descriptionHash) {
      throw new NodeRejected(
        'DESCRIPTION_HASH_UNSUPPORTED',
        'RLN cannot commit a description hash in an invoice (LNURL-pay needs an lnd node)',
      );
    }
    const { invoice } = await this.call<{ invoice: string }>('POST', '/lninvoice', {
      amt_msat: input.amountMsat,
      expiry_sec: input.expirySec,
      ...(input.description ? { description: input.description } : {}),
      ...(input.asset ? { asset_id: input.asset.assetId, asset_amount: input.asset.amount } : {}),
    });
    const d = await this.call<RlnDecoded>('POST', '/decodelninvoice', { invoice });
    return { bolt11: invoice, paymentHash: d.payment_hash, expiresAt: new Date((d.timestamp + d.expiry_sec) * 1000) };
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const d = await this.call<RlnDecoded>('POST', '/decodelninvoice', { invoice: bolt11 });
    return {
      paymentHash: d.payment_hash,
      amountMsat: d.amt_msat == null ? null : n(d.amt_msat),
      asset: d.asset_id && d.asset_amount != null ? { assetId: d.asset_id, amount: n(d.asset_amount) } : null,
    };
  }

  async lookupInvoice(_paymentHash: string, bolt11: string | null): Promise<InvoiceState | null> {
    if (!bolt11) return null;
    let status: string;
    try {
      ({ status } = await this.request<{ status: string }>('POST', '/invoicestatus', { invoice: bolt11 }));
    } catch (err) {
      if (err instanceof RlnHttpError && err.errorName === 'UnknownLNInvoice') return null;
      throw err instanceof RlnHttpError ? new NodeError(err.message, { cause: err }) : err;
    }
    if (status === 'Succeeded') {
      const d = await this.decodeInvoice(bolt11);
      return { state: 'settled', receivedMsat: d.amountMsat ?? 0n, preimage: null };
    }
    if (status === 'Pending') return { state: 'open' };
    return { state: 'closed' };
  }

  watchSettledInvoices(): null {
    return null;
  }

  async payInvoice(input: PayInvoiceInput): Promise<PaymentOutcome> {
    const sent = await this.call<{ payment_hash?: string; status: RlnStatus }>('POST', '/sendpayment', {
      invoice: input.bolt11,
    });
    if (sent.status !== 'Pending')
      return outcomeOf({ payment_hash: input.paymentHash, inbound: false, status: sent.status });
    const final = await this.awaitPayment(input.paymentHash);
    return final.status === 'unknown' ? { status: 'pending' } : final;
  }

  async keysend(input: KeysendInput): Promise<PaymentOutcome & { paymentHash: string }> {
    const sent = await this.call<{ payment_hash: string; payment_preimage: string; status: RlnStatus }>(
      'POST',
      '/keysend',
      {
        dest_pubkey: input.destPubkey,
        amt_msat: input.amountMsat,
      },
    );
    const first = outcomeOf({
      payment_hash: sent.payment_hash,
      inbound: false,
      status: sent.status,
      preimage: sent.payment_preimage,
    });
    if (first.status !== 'pending') return { ...first, paymentHash: sent.payment_hash };
    const final = await this.awaitPayment(sent.payment_hash);
    return { ...(final.status === 'unknown' ? { status: 'pending' as const } : final), paymentHash: sent.payment_hash };
  }

  async lookupPayment(paymentHash: string): Promise<PaymentLookup> {
    try {
      const { payment } = await this.request<{ payment: RlnPayment }>('POST', '/getpayment', {
        payment_hash: paymentHash,
      });
      return outcomeOf(payment);
    } catch (err) {
      if (err instanceof RlnHttpError && err.errorName === 'PaymentNotFound') return { status: 'unknown' };
      throw err instanceof RlnHttpError ? new NodeError(err.message, { cause: err }) : err;
    }
  }

  async awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    for (;;) {
      const r = await this.lookupPayment(paymentHash);
      if (r.status !== 'pending' || this.closed) return r;
      await sleep(this.pollMs);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
