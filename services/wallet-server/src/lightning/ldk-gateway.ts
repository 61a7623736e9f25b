// An LDK node over reglab-ldk's HTTP JSON API (nodes/ldk/README.md). Every invoice of the daemon
// can be canceled until it is paid (the daemon holds LDK's claim until it decides), so an
// internally paid invoice is made unpayable as on lnd. Settled invoices come from the daemon's
// event stream; the keysend preimage is the caller's, so the hash is recorded before sending.
import { createHash } from 'node:crypto';
import { channelBalancesSat, LdkError, type LdkClient, type LdkPayment } from '../../../../lib/lightning/ldk/api.js';
import { followLdkEvents } from '../../../../lib/lightning/ldk/events.js';
import { sleep } from '../../../../lib/wait.js';
import { readBolt11 } from '../../../../lib/lightning/bolt11.js';
import {
  connectionNeverMade,
  NodeError,
  NodeRejected,
  NodeUnreachable,
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

/** How long one pay request waits for LDK's final answer before the payment is followed by polling. */
const PAY_WAIT_SECS = 60;

export class LdkGateway implements NodeGateway {
  readonly kind = 'ldk' as const;
  readonly supportsAssets = false;
  readonly keysendPreimageFromCaller = true;
  private closed = false;

  constructor(
    private readonly client: LdkClient,
    private readonly options: { pollMs?: number } = {},
  ) {}

  /** A call whose refusal is the caller's input (400) or the node's failure (502). */
  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof LdkError && err.status === 400)
        throw new NodeRejected('NODE_REJECTED', `ldk refused ${what}: ${err.reason}`);
      throw new NodeError(`ldk could not take ${what}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
  }

  async info(): Promise<NodeInfo> {
    const [info, channels] = await this.call('the node info', () =>
      Promise.all([this.client.info(), this.client.channels()]),
    );
    const active = channels.filter((c) => c.is_usable).length;
    const pending = channels.filter((c) => !c.is_channel_ready).length;
    return {
      kind: this.kind,
      alias: info.alias,
      pubkey: info.node_id,
      synced: info.synced,
      height: info.block.height,
      peers: info.num_peers,
      channels: { active, pending, inactive: channels.length - active - pending },
    };
  }

  async balances() {
    const [balances, channels] = await this.call('the balances', () =>
      Promise.all([this.client.balances(), this.client.channels()]),
    );
    const localSat = channels
      .filter((c) => c.is_channel_ready)
      .reduce((sum, c) => sum + channelBalancesSat(c).local, 0);
    return { onchainSat: BigInt(balances.onchain.total_sat), lightningLocalMsat: BigInt(localSat) * 1000n };
  }

  assetBalances(): Promise<never> {
    return Promise.reject(
      new NodeRejected(
        'ASSETS_NEED_RGB_NODE',
        'RGB assets need an RGB Lightning Node (NODE_KIND=rln); this server runs on ldk',
      ),
    );
  }

  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    if (input.asset)
      throw new NodeRejected(
        'ASSETS_NEED_RGB_NODE',
        'asset_id/asset_amount need an RGB Lightning Node (NODE_KIND=rln); this server runs on ldk',
      );
    const created = await this.call('the invoice', () =>
      this.client.createInvoice({
        amount_msat: input.amountMsat,
        expiry_secs: input.expirySec,
        ...(input.descriptionHash
          ? { description_hash: input.descriptionHash }
          : { description: input.description ?? '' }),
      }),
    );
    return {
      bolt11: created.invoice,
      paymentHash: created.payment_hash,
      expiresAt: new Date((created.expires_at ?? Date.now() / 1000 + input.expirySec) * 1000),
    };
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const { paymentHash, amountMsat } = readBolt11(bolt11);
    return { paymentHash, amountMsat, asset: null };
  }

  /**
   * LDK keeps an expired invoice pending (and refuses its late payments): once past its expiry the
   * invoice is canceled on the node, which also tells whether a payment was settled just before.
   */
  async lookupInvoice(paymentHash: string, bolt11: string | null): Promise<InvoiceState | null> {
    const payment = await this.call('the invoice lookup', () => this.client.payment(paymentHash));
    if (payment?.direction !== 'inbound') return null;
    if (payment.status === 'succeeded')
      return { state: 'settled', receivedMsat: BigInt(payment.amount_msat ?? 0), preimage: payment.preimage };
    if (payment.status === 'failed') return { state: 'closed' };
    if (bolt11 === null || readBolt11(bolt11).expiresAt.getTime() > Date.now()) return { state: 'open' };
    try {
      await this.client.cancelInvoice(paymentHash);
      return { state: 'closed' };
    } catch (err) {
      if (err instanceof LdkError && err.code === 'ALREADY_SETTLED') return this.lookupInvoice(paymentHash, null);
      throw new NodeError(`ldk could not cancel the expired invoice ${paymentHash}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await this.call('the invoice cancel', () => this.client.cancelInvoice(paymentHash));
  }

  watchSettledInvoices(onSettled: (paymentHash: string) => void): () => void {
    return followLdkEvents(this.client.url, (event) => {
      if (event.type === 'payment_received' && event.payment_hash) onSettled(event.payment_hash);
    });
  }

  payInvoice(input: PayInvoiceInput): Promise<PaymentOutcome> {
    return this.send(input.paymentHash, () =>
      this.client.payInvoice({ invoice: input.bolt11, max_fee_msat: input.maxFeeMsat, wait_secs: PAY_WAIT_SECS }),
    );
  }

  async keysend(input: KeysendInput): Promise<PaymentOutcome & { paymentHash: string }> {
    const paymentHash = createHash('sha256').update(Buffer.from(input.preimage, 'hex')).digest('hex');
    const outcome = await this.send(paymentHash, () =>
      this.client.keysend({
        pubkey: input.destPubkey,
        amount_msat: input.amountMsat,
        preimage: input.preimage,
        max_fee_msat: input.maxFeeMsat,
        wait_secs: PAY_WAIT_SECS,
      }),
    );
    return { ...outcome, paymentHash };
  }

  /** Sends and follows the payment to LDK's final answer. */
  private async send(paymentHash: string, request: () => Promise<LdkPayment>): Promise<PaymentOutcome> {
    let sent: LdkPayment;
    try {
      sent = await request();
    } catch (err) {
      // A payment of this hash is under way or done: its own outcome is the answer.
      if (err instanceof LdkError && err.code === 'DUPLICATE_PAYMENT') return this.settledOutcome(paymentHash);
      // Refused before anything was sent (bad invoice, expired, no route, too little balance).
      if (err instanceof LdkError && err.status >= 400 && err.status < 500)
        return { status: 'failed', error: `ldk refused the payment: ${err.reason}` };
      if (connectionNeverMade(err))
        throw new NodeUnreachable(`ldk did not take the payment: ${(err as Error).message}`, { cause: err });
      // The node failed or did not answer: it may have sent it; ask it. One it does not know is
      // failed when the daemon answered (an error of its own); after a lost connection or a
      // time-out it stays pending, for the reconcile to refund once the daemon has had time to
      // record it.
      const found = await this.lookupPayment(paymentHash).catch(() => ({ status: 'pending' as const }));
      if (found.status !== 'unknown') return found;
      return err instanceof LdkError
        ? { status: 'failed', error: `ldk did not take the payment: ${err.message}` }
        : { status: 'pending' };
    }
    return sent.status === 'pending' ? this.settledOutcome(paymentHash) : outcomeOf(sent);
  }

  private async settledOutcome(paymentHash: string): Promise<PaymentOutcome> {
    const final = await this.awaitPayment(paymentHash);
    return final.status === 'unknown' ? { status: 'pending' } : final;
  }

  async lookupPayment(paymentHash: string): Promise<PaymentLookup> {
    const payment = await this.call('the payment lookup', () => this.client.payment(paymentHash));
    return payment?.direction === 'outbound' ? outcomeOf(payment) : { status: 'unknown' };
  }

  async awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    for (;;) {
      const found = await this.lookupPayment(paymentHash);
      if (found.status !== 'pending' || this.closed) return found;
      await sleep(this.options.pollMs ?? 250);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

function outcomeOf(payment: LdkPayment): PaymentOutcome {
  if (payment.status === 'succeeded')
    return { status: 'succeeded', feeMsat: BigInt(payment.fee_paid_msat ?? 0), preimage: payment.preimage };
  if (payment.status === 'failed')
    return { status: 'failed', error: `the payment failed (${payment.failure_reason ?? 'LDK gave no reason'})` };
  return { status: 'pending' };
}
