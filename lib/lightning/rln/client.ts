// An RGB Lightning Node over its HTTP JSON API (lib/rln/client.ts; shapes from
// ../shared/reference/rgb-lightning-node.md, RLN HEAD). RLN reports no routing fee and takes no fee
// limit; it makes keysend preimages itself, commits no description hash, and has no invoice stream
// and no invoice cancel: callers poll `invoice`. Its invoices may ask for an RGB asset amount.
import { waitFor } from '../../wait.js';
import { readBolt11 } from '../bolt11.js';
import { RlnError, type RlnClient, type RlnPayment, type RlnPaymentStatus } from '../../rln/client.js';
import type {
  AssetBalance,
  ClientOptions,
  CreatedInvoice,
  DecodedInvoice,
  Invoice,
  InvoiceRequest,
  KeysendRequest,
  LightningClient,
  NodeInfo,
  PayRequest,
  PaymentLookup,
  PaymentOutcome,
  RgbAssets,
} from '../client.js';
import { LightningError, noAnswer, nodeFailed, nodeRefused } from '../errors.js';
import { PaymentPolls } from '../poll.js';

const amount = (value: number | string | null | undefined) => BigInt(value ?? 0);

/** A payment as RLN tells it: no routing fee. */
function outcomeOf(
  paymentHash: string,
  status: RlnPaymentStatus,
  amountMsat: bigint,
  preimage?: string | null,
): PaymentOutcome {
  if (status === 'Succeeded')
    return { status: 'succeeded', paymentHash, ...(preimage ? { preimage } : {}), amountMsat, feeMsat: 0n };
  if (status === 'Failed') return { status: 'failed', paymentHash, reason: 'RLN reports the payment failed' };
  return { status: 'pending', paymentHash };
}

const paymentOutcome = (payment: RlnPayment): PaymentOutcome =>
  outcomeOf(payment.payment_hash, payment.status, amount(payment.amt_msat), payment.preimage);

export class RlnLightning implements LightningClient {
  readonly implementation = 'rln';
  readonly capabilities = { descriptionHash: false, keysendPreimage: false };
  readonly assets: RgbAssets;
  private readonly name: string;
  private readonly polls: PaymentPolls;

  constructor(
    private readonly api: RlnClient,
    options: ClientOptions = {},
  ) {
    this.name = options.name ?? this.implementation;
    this.polls = new PaymentPolls((paymentHash) => this.payment(paymentHash), options.pollMs ?? 500);
    this.assets = { balances: (assetIds) => Promise.all(assetIds.map((assetId) => this.assetBalance(assetId))) };
  }

  /** A call of RLN that got no answer: RLN unreachable, or failed. */
  private async request<T>(path: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (error instanceof RlnError || error instanceof LightningError) throw error;
      throw noAnswer(`RLN at ${this.api.url} is unreachable (${path}): ${(error as Error).message}`, error);
    }
  }

  /** A call of RLN whose refusals of the caller's input (400; an asset it does not know) are refusals. */
  private async call<T>(path: string, run: () => Promise<T>): Promise<T> {
    try {
      return await this.request(path, run);
    } catch (error) {
      throw this.failure(error, (rln) => {
        if (rln.status === 400) return nodeRefused(rln.message);
        // RLN answers an asset id it does not know with 403 UnknownContractId: the caller's input, not a node failure
        if (rln.rlnName === 'UnknownContractId') return nodeRefused(rln.message, 'INVALID_ASSET');
        return undefined;
      });
    }
  }

  /** RLN's error as `refusal` reads it, else as RLN's failure. */
  private failure(error: unknown, refusal: (rln: RlnError) => LightningError | undefined): unknown {
    if (!(error instanceof RlnError)) return error;
    return refusal(error) ?? nodeFailed(error.message, error);
  }

  async info(): Promise<NodeInfo> {
    const [node, network, channels] = await Promise.all([
      this.call('/nodeinfo', () => this.api.nodeInfo()),
      this.call('/networkinfo', () => this.api.networkInfo()),
      this.call('/listchannels', () => this.api.listChannels()),
    ]);
    const active = channels.filter((channel) => channel.is_usable).length;
    const pending = channels.filter((channel) => channel.status === 'Opening').length;
    return {
      pubkey: node.pubkey,
      synced: true,
      height: network.height,
      peers: node.num_peers,
      channels: { active, pending, inactive: channels.length - active - pending },
    };
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await this.api.networkInfo()).height >= height, {
      timeoutMs,
      what: `rln node ${this.name} to reach height ${height}`,
    });
  }

  newAddress(): Promise<string> {
    return this.call('/address', () => this.api.address());
  }

  /** As the node last synced its wallet: syncing it first would make every read wait for the indexer. */
  async onchainBalance() {
    const { vanilla } = await this.call('/btcbalance', () => this.api.btcBalance(true));
    return { confirmedSat: vanilla.settled, unconfirmedSat: vanilla.future - vanilla.settled };
  }

  async channelBalanceMsat(): Promise<bigint> {
    return amount((await this.call('/nodeinfo', () => this.api.nodeInfo())).local_balance_sat) * 1000n;
  }

  private async assetBalance(assetId: string): Promise<AssetBalance> {
    const balance = await this.call('/assetbalance', () => this.api.assetBalance(assetId));
    return {
      assetId,
      settled: amount(balance.settled),
      future: amount(balance.future),
      spendable: amount(balance.spendable),
      offchainOutbound: amount(balance.offchain_outbound),
      offchainInbound: amount(balance.offchain_inbound),
    };
  }

  async createInvoice(request: InvoiceRequest): Promise<CreatedInvoice> {
    if (request.descriptionHash)
      throw nodeRefused(
        'RLN cannot commit a description hash in an invoice (LNURL-pay needs an lnd node)',
        'DESCRIPTION_HASH_UNSUPPORTED',
      );
    const bolt11 = await this.call('/lninvoice', () =>
      this.api.lnInvoice({
        amt_msat: Number(request.amountMsat),
        expiry_sec: request.expirySec ?? 3600,
        ...(request.description ? { description: request.description } : {}),
        ...(request.asset ? { asset_id: request.asset.assetId, asset_amount: Number(request.asset.amount) } : {}),
      }),
    );
    const { paymentHash, expiresAt } = await this.decodeInvoice(bolt11);
    return { bolt11, paymentHash, expiresAt };
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const decoded = await this.call('/decodelninvoice', () => this.api.decodeLnInvoice(bolt11));
    return {
      paymentHash: decoded.payment_hash,
      amountMsat: decoded.amt_msat == null ? null : amount(decoded.amt_msat),
      expiresAt: new Date((decoded.timestamp + decoded.expiry_sec) * 1000),
      asset:
        decoded.asset_id && decoded.asset_amount != null
          ? { assetId: decoded.asset_id, amount: amount(decoded.asset_amount) }
          : null,
    };
  }

  /** RLN looks invoices up by invoice: without it, none is found. */
  async invoice(paymentHash: string, bolt11?: string): Promise<Invoice | undefined> {
    if (!bolt11) return undefined;
    let status: string;
    try {
      status = await this.request('/invoicestatus', () => this.api.invoiceStatus(bolt11));
    } catch (error) {
      if (error instanceof RlnError && error.rlnName === 'UnknownLNInvoice') return undefined;
      throw this.failure(error, () => undefined);
    }
    const amountMsat = (await this.decodeInvoice(bolt11)).amountMsat ?? 0n;
    const state = status === 'Succeeded' ? 'settled' : status === 'Pending' ? 'open' : 'canceled';
    return { paymentHash, state, amountMsat, receivedMsat: state === 'settled' ? amountMsat : 0n };
  }

  async pay(request: PayRequest): Promise<PaymentOutcome> {
    const { paymentHash, amountMsat } = readBolt11(request.bolt11);
    const sent = await this.call('/sendpayment', () => this.api.sendPayment(request.bolt11));
    if (sent.status !== 'Pending') return outcomeOf(paymentHash, sent.status, amountMsat ?? 0n);
    return this.polls.endOf(paymentHash);
  }

  async keysend(request: KeysendRequest): Promise<PaymentOutcome> {
    const sent = await this.call('/keysend', () =>
      this.api.keysend({ dest_pubkey: request.pubkey, amt_msat: Number(request.amountMsat) }),
    );
    const first = outcomeOf(sent.payment_hash, sent.status, request.amountMsat, sent.payment_preimage);
    return first.status === 'pending' ? this.polls.endOf(sent.payment_hash) : first;
  }

  async payment(paymentHash: string): Promise<PaymentLookup> {
    try {
      return paymentOutcome(await this.request('/getpayment', () => this.api.getPayment(paymentHash)));
    } catch (error) {
      if (error instanceof RlnError && error.rlnName === 'PaymentNotFound') return { status: 'unknown', paymentHash };
      throw this.failure(error, () => undefined);
    }
  }

  awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    return this.polls.untilEnded(paymentHash);
  }

  close(): void {
    this.polls.close();
  }
}
