// The lab's handle on an LDK node, over reglab-ldk's HTTP API (lib/ldk/client.ts). LDK learns the
// chain only when it syncs (every 10 s in the background): the reads that depend on the chain sync
// it first whenever btcd's tip has moved, so the lab sees an LDK node follow its blocks at once, as
// lnd does. The daemon's refusals become the lab's errors here.
import { createHash } from 'node:crypto';
import { decode } from 'light-bolt11-decoder';
import type { RpcChainDriver } from '../../../../lib/chain/rpc-driver.js';
import { conflict, DomainError, invalid, notFound, unavailable } from '../../../../lib/errors.js';
import {
  channelBalancesSat,
  LdkError,
  type LdkChannel,
  type LdkClient,
  type LdkPayment,
} from '../../../../lib/ldk/client.js';
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
  type NodeInfo,
  type OpenChannelRequest,
  type PaymentView,
  type PendingClose,
} from '../node.js';
import { FundingPositions, waitInMempool, waitSpendInMempool } from './chain.js';

/** How long a payment request waits for LDK's final answer: a payment still pending then is in flight. */
const PAYMENT_WAIT_SECS = PAYMENT_TIMEOUT_SECONDS + PAYMENT_ANSWER_GRACE_SECONDS;

const paymentView = (payment: LdkPayment): PaymentView => ({
  paymentHash: payment.payment_hash ?? payment.id,
  preimage: payment.preimage ?? undefined,
  amountMsat: BigInt(payment.amount_msat ?? 0),
  feeMsat: BigInt(payment.fee_paid_msat ?? 0),
});

function channelView(channel: LdkChannel & { funding_txo: { txid: string; vout: number } }): ChannelView {
  const { local, remote } = channelBalancesSat(channel);
  return {
    id: `${channel.funding_txo.txid}:${channel.funding_txo.vout}`,
    partnerPubkey: channel.counterparty_node_id,
    capacitySat: channel.capacity_sat,
    localSat: local,
    remoteSat: remote,
    active: channel.is_usable,
    private: !channel.is_announced,
    fundingTxid: channel.funding_txo.txid,
    fundingVout: channel.funding_txo.vout,
  };
}

export class LdkLabNode implements LabLightningNode {
  readonly lightning = true;
  readonly kind = 'ldk';
  private readonly positions: FundingPositions;
  /** The chain height of the node's last sync, and the sync under way. */
  private syncedHeight = -1;
  private syncing?: Promise<void>;

  constructor(
    readonly name: string,
    private readonly client: LdkClient,
    private readonly chain: RpcChainDriver,
  ) {
    this.positions = new FundingPositions(chain);
  }

  async ping(): Promise<void> {
    await this.refusals(() => this.client.info());
  }

  async newAddress(): Promise<string> {
    return this.refusals(() => this.client.newAddress());
  }

  async onchainBalance() {
    await this.followChain();
    const { onchain } = await this.refusals(() => this.client.balances());
    // spendable: confirmed coins and the node's own unconfirmed change; the rest of the total arrives unconfirmed
    return {
      confirmedSat: onchain.spendable_sat + onchain.anchor_reserve_sat,
      unconfirmedSat: onchain.total_sat - onchain.spendable_sat - onchain.anchor_reserve_sat,
    };
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await this.sync()) >= height, {
      timeoutMs,
      intervalMs: 100,
      what: `ldk node ${this.name} to sync to height ${height}`,
    });
  }

  async info(): Promise<NodeInfo> {
    const info = await this.refusals(() => this.client.info());
    return {
      pubkey: info.node_id,
      alias: info.alias ?? undefined,
      synced: info.synced,
      height: info.block.height,
      peers: info.num_peers,
    };
  }

  async channelBalanceSat(): Promise<number> {
    return (await this.channels())
      .filter((channel) => channel.active)
      .reduce((sum, channel) => sum + channel.localSat, 0);
  }

  /** Channels that are open (their funding confirmed), as lnd lists them. */
  async channels(): Promise<ChannelView[]> {
    await this.followChain();
    const channels = await this.refusals(() => this.client.channels());
    return channels
      .filter(
        (channel): channel is LdkChannel & { funding_txo: { txid: string; vout: number } } =>
          channel.is_channel_ready && channel.funding_txo !== null,
      )
      .map(channelView);
  }

  async connect(pubkey: string, address: string): Promise<void> {
    await this.refusals(() => this.client.connectPeer(pubkey, address));
  }

  async disconnect(pubkey: string): Promise<void> {
    await this.refusals(() => this.client.disconnectPeer(pubkey));
  }

  /** ldk-node has no call to reset its scorer: its penalties fade on their own. */
  async forgetPaymentFailures(): Promise<void> {}

  async connectedPeers(): Promise<string[]> {
    const peers = await this.refusals(() => this.client.peers());
    return peers.filter((peer) => peer.is_connected).map((peer) => peer.node_id);
  }

  /** Opens, and returns once the funding transaction is in btcd's mempool (LDK broadcasts it a moment after it answers). */
  async openChannel(request: OpenChannelRequest) {
    const opened = await this.refusals(() =>
      this.client.openChannel({
        pubkey: request.partnerPubkey,
        address: request.partnerAddress,
        capacity_sat: request.capacitySat,
        push_msat: request.pushSat * 1000,
        public: !request.private,
      }),
    );
    const funding =
      opened.funding_txid !== null && opened.funding_vout !== null
        ? { txid: opened.funding_txid, vout: opened.funding_vout }
        : await waitFor(
            async () =>
              (await this.client.channels()).find((channel) => channel.user_channel_id === opened.user_channel_id)
                ?.funding_txo ?? undefined,
            {
              timeoutMs: 60_000,
              intervalMs: 200,
              what: `${this.name}'s channel to ${request.partnerPubkey} to be funded`,
            },
          );
    await waitInMempool(this.chain, funding.txid);
    return { fundingTxid: funding.txid, fundingVout: funding.vout };
  }

  /** Closes, and returns the closing transaction once it is in btcd's mempool. */
  async closeChannel(channel: ChannelView, force: boolean) {
    const open = (await this.refusals(() => this.client.channels())).find(
      (candidate) =>
        candidate.funding_txo?.txid === channel.fundingTxid && candidate.funding_txo.vout === channel.fundingVout,
    );
    if (!open) throw notFound(`${this.name} has no open channel funded by ${channel.id}`, 'NO_SUCH_CHANNEL');
    await this.refusals(() =>
      this.client.closeChannel({
        user_channel_id: open.user_channel_id,
        counterparty_node_id: open.counterparty_node_id,
        force,
      }),
    );
    return {
      closingTxid: await waitSpendInMempool(this.chain, { txid: channel.fundingTxid, vout: channel.fundingVout }),
    };
  }

  /**
   * Channels being closed: what LDK still has to claim of channels no longer open, by funding
   * transaction (the event log's channel_pending names the funding of each channel id). A sweep
   * whose transaction is confirmed is over: its coins are the on-chain wallet's (LDK keeps listing
   * it, awaiting 4,038 confirmations before it forgets it, and the lab counted it twice).
   */
  async pendingCloses(): Promise<PendingClose[]> {
    await this.followChain();
    const [balances, open, height] = await Promise.all([
      this.refusals(() => this.client.balances()),
      this.refusals(() => this.client.channels()),
      this.chain.getBlockCount(),
    ]);
    const openIds = new Set(open.map((channel) => channel.channel_id));
    const closing = new Map<string, PendingClose>();
    const fundingOf = await this.fundingByChannelId();
    const add = (channelId: string | null, amountSat: number, matureAt?: number) => {
      const fundingTxid = channelId === null ? undefined : fundingOf.get(channelId);
      if (channelId === null || fundingTxid === undefined || openIds.has(channelId)) return;
      const entry = closing.get(channelId) ?? { fundingTxid, pendingSat: 0 };
      entry.pendingSat += amountSat;
      if (matureAt !== undefined) entry.blocksUntilSweep = Math.max(entry.blocksUntilSweep ?? 0, matureAt - height);
      closing.set(channelId, entry);
    };
    for (const balance of balances.lightning_balances)
      add(
        balance.channel_id,
        balance.amount_sat,
        balance.confirmation_height ?? balance.claimable_height ?? balance.timeout_height,
      );
    for (const sweep of balances.pending_sweeps)
      if (sweep.status !== 'awaiting_threshold_confirmations') add(sweep.channel_id, sweep.amount_sat);
    return [...closing.values()];
  }

  async canRouteOver(fundingTxid: string): Promise<boolean> {
    const prefix = await this.positions.prefixOf(fundingTxid);
    if (prefix === undefined) return false;
    return (await this.routable()).some((channel) => channel.short_channel_id.startsWith(prefix));
  }

  async routableChannels(): Promise<number> {
    return (await this.routable()).length;
  }

  async createInvoice(request: { amountMsat: bigint; memo?: string; expirySec?: number; holdPaymentHash?: string }) {
    const created = await this.refusals(() =>
      this.client.createInvoice({
        amount_msat: request.amountMsat,
        description: request.memo,
        expiry_secs: request.expirySec,
        payment_hash: request.holdPaymentHash,
      }),
    );
    return { paymentRequest: created.invoice, paymentHash: created.payment_hash };
  }

  async invoice(paymentHash: string): Promise<InvoiceView> {
    const payment = await this.refusals(() => this.client.payment(paymentHash));
    if (payment?.direction !== 'inbound')
      throw notFound(`${this.name} has no invoice with payment hash ${paymentHash}`, 'NO_SUCH_INVOICE');
    const amountMsat = BigInt(payment.amount_msat ?? 0);
    if (payment.status === 'succeeded') return { paymentHash, state: 'settled', amountMsat, receivedMsat: amountMsat };
    if (payment.status === 'failed') return { paymentHash, state: 'canceled', amountMsat, receivedMsat: 0n };
    const held = (await this.refusals(() => this.client.events())).some(
      (event) => event.type === 'payment_claimable' && event.payment_hash === paymentHash,
    );
    return { paymentHash, state: held ? 'accepted' : 'open', amountMsat, receivedMsat: 0n };
  }

  async settleInvoice(preimage: string): Promise<void> {
    const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
    await this.refusals(() => this.client.settleInvoice(paymentHash, preimage));
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await this.refusals(() => this.client.cancelInvoice(paymentHash));
  }

  async paymentHashOf(paymentRequest: string): Promise<string> {
    try {
      const hash = decode(paymentRequest).sections.find((section) => section.name === 'payment_hash');
      if (hash?.name === 'payment_hash') return hash.value;
    } catch {
      // said below
    }
    throw invalid('INVALID_INVOICE', `"${paymentRequest.slice(0, 24)}…" is not a BOLT11 invoice`);
  }

  async pay(paymentRequest: string): Promise<PaymentView> {
    return this.answered(
      await this.refusals(() => this.client.payInvoice({ invoice: paymentRequest, wait_secs: PAYMENT_WAIT_SECS })),
    );
  }

  async paymentOutcome(paymentHash: string): Promise<PaymentView | undefined> {
    const payment = await this.refusals(() => this.client.payment(paymentHash));
    if (payment?.direction !== 'outbound' || payment.status === 'failed') return undefined;
    return this.finalOutcome(payment).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'PAYMENT_FAILED') return undefined;
      throw error;
    });
  }

  async keysend(pubkey: string, amountMsat: bigint): Promise<PaymentView> {
    return this.answered(
      await this.refusals(() => this.client.keysend({ pubkey, amount_msat: amountMsat, wait_secs: PAYMENT_WAIT_SECS })),
    );
  }

  /** A payment as LDK answered it after PAYMENT_WAIT_SECS: its end, or still in flight. */
  private answered(sent: LdkPayment): Promise<PaymentView> {
    if (sent.status === 'pending') throw paymentInFlight(this.name, sent.payment_hash ?? sent.id);
    return this.finalOutcome(sent);
  }

  close(): void {
    // plain HTTP calls: nothing to release
  }

  /** A payment followed to its end: the payment when it succeeded, LDK's reason when it failed. */
  private async finalOutcome(sent: LdkPayment): Promise<PaymentView> {
    const final =
      sent.status !== 'pending'
        ? sent
        : await waitFor(
            async () => {
              const current = await this.client.payment(sent.id);
              return current && current.status !== 'pending' ? current : undefined;
            },
            {
              timeoutMs: PAYMENT_END_WAIT_MS,
              intervalMs: 500,
              what: `${this.name}'s payment ${sent.payment_hash} to succeed or fail`,
            },
          );
    if (final.status === 'failed') throw paymentFailed(this.name, final.failure_reason ?? 'LDK gave no reason');
    return paymentView(final);
  }

  private async routable() {
    return (await this.refusals(() => this.client.graphChannels())).filter(
      (channel) => channel.one_to_two !== null && channel.two_to_one !== null,
    );
  }

  private async fundingByChannelId(): Promise<Map<string, string>> {
    const events = await this.refusals(() => this.client.events());
    return new Map(
      events
        .filter((event) => event.type === 'channel_pending')
        .map((event) => [event.channel_id as string, (event.funding_txo as { txid: string }).txid]),
    );
  }

  /** Syncs the node when btcd's tip has moved since its last sync; returns the height it synced to. */
  private async sync(): Promise<number> {
    this.syncing ??= this.refusals(() => this.client.sync())
      .then((info) => void (this.syncedHeight = info.block.height))
      .finally(() => (this.syncing = undefined));
    await this.syncing;
    return this.syncedHeight;
  }

  private async followChain(): Promise<void> {
    if ((await this.chain.getBlockCount()) > this.syncedHeight) await this.sync();
  }

  /** The daemon's refusals as the lab's errors: its code and words, by its status. */
  private async refusals<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof LdkError)) throw error;
      const said = `${this.name}: ${error.reason}`;
      if (error.status === 400) throw invalid(error.code, said);
      if (error.status === 404) throw notFound(said, error.code);
      if (error.status === 409) throw conflict(error.code, said);
      if (error.status === 503) throw unavailable(error.code, said);
      throw new DomainError('upstream', error.code, said, {}, { cause: error });
    }
  }
}
