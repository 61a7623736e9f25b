// The lab's handle on an lnd node, over ln-service.
import { createHash, randomBytes } from 'node:crypto';
import type { AuthenticatedLnd, UnauthenticatedLnd } from 'ln-service';
import {
  addPeer,
  cancelHodlInvoice,
  closeChannel,
  createChainAddress,
  createHodlInvoice,
  createInvoice,
  decodePaymentRequest,
  deleteForwardingReputations,
  getChannelBalance,
  getChannels,
  getInvoice,
  getNetworkGraph,
  getPayment,
  getPeers,
  getPendingChannels,
  getWalletInfo,
  getWalletStatus,
  openChannel,
  pay,
  payViaPaymentDetails,
  removePeer,
  settleHodlInvoice,
} from '../../../../lib/lightning/methods.js';
import { getDefaultAccountBalance } from '../../../../lib/lightning/rpc.js';
import { waitFor } from '../../../../lib/wait.js';
import {
  PAYMENT_ANSWER_GRACE_SECONDS,
  PAYMENT_END_WAIT_MS,
  PAYMENT_TIMEOUT_SECONDS,
  paymentFailed,
  paymentInFlight,
  type ChannelView,
  type InvoiceView,
  type LabLightningNode,
  type PaymentView,
  type PendingClose,
} from '../node.js';

/** TLV record type of a keysend preimage (what lnd's --accept-keysend reads). */
const KEYSEND_TYPE = '5482373484';

/** lnd's reasons for giving a payment up (ln-service's codes), in words. */
const PAYMENT_FAILURES: Record<string, string> = {
  InsufficientBalanceToAttemptPayment: 'none of its active channels has the balance to send it',
  PaymentPathfindingFailedToFindPossibleRoute: 'no route to the payee',
  FailedToFindPayableRouteToDestination: 'every route it tried failed',
  PaymentAttemptsTimedOut: `no route worked within the payment timeout (${PAYMENT_TIMEOUT_SECONDS} s)`,
  PaymentRejectedByDestination: 'the payee refused it (an invoice it does not know, already paid, or the wrong amount)',
  PaymentExecutionCanceled: 'the payment was canceled',
};

type GraphChannel = { transaction_id: string; policies: { cltv_delta?: number }[] };
const routable = (channel: GraphChannel) =>
  channel.policies.length === 2 && channel.policies.every((policy) => policy.cltv_delta !== undefined);

const paymentView = (paid: {
  id: string;
  secret?: string;
  mtokens: string;
  fee_mtokens: string;
  hops: unknown[];
}): PaymentView => ({
  paymentHash: paid.id,
  preimage: paid.secret,
  amountMsat: BigInt(paid.mtokens) - BigInt(paid.fee_mtokens),
  feeMsat: BigInt(paid.fee_mtokens),
  hops: paid.hops.length,
});

export class LndLabNode implements LabLightningNode {
  readonly lightning = true;
  readonly kind = 'lnd';

  constructor(
    readonly name: string,
    private readonly lnd: AuthenticatedLnd,
    /** lnd's State service, which answers without a macaroon. */
    private readonly state: UnauthenticatedLnd,
  ) {}

  /**
   * Whether lnd has started everything (SERVER_ACTIVE): it answers GetInfo, and may say it is
   * synced, while its peer server is still starting and refuses connections.
   */
  async serverActive(): Promise<boolean> {
    return (await getWalletStatus({ lnd: this.state })).is_ready === true;
  }

  /** lnd's State service: GetInfo waits for btcd while lnd reconnects to it. */
  async ping(): Promise<void> {
    await getWalletStatus({ lnd: this.state });
  }

  async newAddress(): Promise<string> {
    return (await createChainAddress({ lnd: this.lnd, format: 'p2wpkh' })).address;
  }

  async onchainBalance() {
    return getDefaultAccountBalance(this.lnd);
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        const info = await getWalletInfo({ lnd: this.lnd });
        return info.is_synced_to_chain && info.current_block_height >= height;
      },
      { timeoutMs, intervalMs: 100, what: `lnd node ${this.name} to sync to height ${height}` },
    );
  }

  async info() {
    const info = await getWalletInfo({ lnd: this.lnd });
    return {
      pubkey: info.public_key,
      alias: info.alias,
      synced: info.is_synced_to_chain,
      height: info.current_block_height,
      peers: info.peers_count,
    };
  }

  async channelBalanceSat(): Promise<number> {
    return (await getChannelBalance({ lnd: this.lnd })).channel_balance;
  }

  async channels(): Promise<ChannelView[]> {
    const { channels } = await getChannels({ lnd: this.lnd });
    return channels.map((channel) => ({
      id: `${channel.transaction_id}:${channel.transaction_vout}`,
      partnerPubkey: channel.partner_public_key,
      capacitySat: channel.capacity,
      localSat: channel.local_balance,
      remoteSat: channel.remote_balance,
      active: channel.is_active,
      private: channel.is_private,
      fundingTxid: channel.transaction_id,
      fundingVout: channel.transaction_vout,
    }));
  }

  async connect(pubkey: string, address: string): Promise<void> {
    await addPeer({ lnd: this.lnd, public_key: pubkey, socket: address, retry_count: 5, retry_delay: 200 });
  }

  async disconnect(pubkey: string): Promise<void> {
    await removePeer({ lnd: this.lnd, public_key: pubkey });
  }

  async connectedPeers(): Promise<string[]> {
    return (await getPeers({ lnd: this.lnd })).peers.map((peer) => peer.public_key);
  }

  /** lnd's mission control: a pair that failed a payment is avoided for about an hour. */
  async forgetPaymentFailures(): Promise<void> {
    await deleteForwardingReputations({ lnd: this.lnd });
  }

  async openChannel(request: {
    partnerPubkey: string;
    partnerAddress: string;
    capacitySat: number;
    pushSat: number;
    private?: boolean;
  }) {
    const opened = await openChannel({
      lnd: this.lnd,
      partner_public_key: request.partnerPubkey,
      partner_socket: request.partnerAddress,
      local_tokens: request.capacitySat,
      give_tokens: request.pushSat,
      is_private: request.private ?? false,
    });
    return { fundingTxid: opened.transaction_id, fundingVout: opened.transaction_vout };
  }

  async closeChannel(channel: ChannelView, force: boolean) {
    const outpoint = { lnd: this.lnd, transaction_id: channel.fundingTxid, transaction_vout: channel.fundingVout };
    const closed = force ? await closeChannel({ ...outpoint, is_force_close: true }) : await closeChannel(outpoint);
    return { closingTxid: closed.transaction_id };
  }

  async pendingCloses(): Promise<PendingClose[]> {
    const { pending_channels } = await getPendingChannels({ lnd: this.lnd });
    return pending_channels
      .filter((channel) => channel.is_closing)
      .map((channel) => ({
        fundingTxid: channel.transaction_id,
        closingTxid: channel.close_transaction_id,
        // lnd counts below zero once the funds matured, until its sweep confirms
        blocksUntilSweep: channel.timelock_blocks === undefined ? undefined : Math.max(0, channel.timelock_blocks),
        pendingSat: channel.pending_balance ?? channel.local_balance,
      }));
  }

  async canRouteOver(fundingTxid: string): Promise<boolean> {
    const { channels } = await getNetworkGraph({ lnd: this.lnd });
    return channels.some((channel) => channel.transaction_id === fundingTxid && routable(channel));
  }

  async routableChannels(): Promise<number> {
    return (await getNetworkGraph({ lnd: this.lnd })).channels.filter(routable).length;
  }

  async createInvoice(request: { amountMsat: bigint; memo?: string; expirySec?: number; holdPaymentHash?: string }) {
    const common = {
      lnd: this.lnd,
      mtokens: request.amountMsat.toString(),
      description: request.memo,
      expires_at:
        request.expirySec === undefined ? undefined : new Date(Date.now() + request.expirySec * 1000).toISOString(),
    };
    const created = request.holdPaymentHash
      ? await createHodlInvoice({ ...common, id: request.holdPaymentHash })
      : await createInvoice(common);
    return { paymentRequest: created.request, paymentHash: created.id };
  }

  async invoice(paymentHash: string): Promise<InvoiceView> {
    const invoice = await getInvoice({ lnd: this.lnd, id: paymentHash });
    const state = invoice.is_confirmed
      ? 'settled'
      : invoice.is_canceled
        ? 'canceled'
        : invoice.is_held
          ? 'accepted'
          : 'open';
    // a cancelled invoice received nothing, whatever HTLCs it held before
    return {
      paymentHash,
      state,
      amountMsat: BigInt(invoice.tokens) * 1000n,
      receivedMsat: state === 'canceled' ? 0n : BigInt(invoice.received_mtokens),
    };
  }

  async settleInvoice(preimage: string): Promise<void> {
    await settleHodlInvoice({ lnd: this.lnd, secret: preimage });
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await cancelHodlInvoice({ lnd: this.lnd, id: paymentHash });
  }

  async paymentHashOf(paymentRequest: string): Promise<string> {
    return (await decodePaymentRequest({ lnd: this.lnd, request: paymentRequest })).id;
  }

  async pay(paymentRequest: string): Promise<PaymentView> {
    const paymentHash = await this.paymentHashOf(paymentRequest);
    return this.answered(
      paymentHash,
      pay({ lnd: this.lnd, request: paymentRequest, pathfinding_timeout: PAYMENT_TIMEOUT_SECONDS * 1000 }),
    );
  }

  async paymentOutcome(paymentHash: string): Promise<PaymentView | undefined> {
    const lookUp = () => getPayment({ lnd: this.lnd, id: paymentHash }).catch(() => undefined);
    let found = await lookUp();
    if (found?.is_pending) {
      found = await waitFor(
        async () => {
          const current = await lookUp();
          return current && !current.is_pending ? current : undefined;
        },
        {
          timeoutMs: PAYMENT_END_WAIT_MS,
          intervalMs: 500,
          what: `${this.name}'s payment ${paymentHash} to succeed or fail`,
        },
      );
    }
    return found?.payment ? paymentView(found.payment) : undefined;
  }

  async keysend(pubkey: string, amountMsat: bigint): Promise<PaymentView> {
    const preimage = randomBytes(32);
    const paymentHash = createHash('sha256').update(preimage).digest('hex');
    return this.answered(
      paymentHash,
      payViaPaymentDetails({
        lnd: this.lnd,
        destination: pubkey,
        mtokens: amountMsat.toString(),
        id: paymentHash,
        messages: [{ type: KEYSEND_TYPE, value: preimage.toString('hex') }],
        pathfinding_timeout: PAYMENT_TIMEOUT_SECONDS * 1000,
      }),
    );
  }

  /**
   * lnd's final answer to a payment, its failure in words; not waited for beyond the payment
   * timeout: an HTLC held by a node that does not answer keeps the payment in flight until it does.
   */
  private async answered(
    paymentHash: string,
    paying: Promise<Parameters<typeof paymentView>[0]>,
  ): Promise<PaymentView> {
    paying.catch(() => undefined); // it may end after the lab stopped waiting
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(paymentInFlight(this.name, paymentHash)),
        (PAYMENT_TIMEOUT_SECONDS + PAYMENT_ANSWER_GRACE_SECONDS) * 1000,
      );
    });
    try {
      return paymentView(await Promise.race([paying, late]));
    } catch (error) {
      const code = Array.isArray(error) ? (error[1] as string) : undefined;
      if (code !== undefined && code in PAYMENT_FAILURES)
        throw paymentFailed(this.name, `${PAYMENT_FAILURES[code]} (${code})`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    // ln-service's gRPC channels close with the process; nothing holds the event loop
  }
}
