// An LDK node: reglab-ldk (nodes/ldk) over its HTTP API (api.ts). Every invoice of the daemon can be
// canceled until it is paid (the daemon holds LDK's claim until it decides), so an invoice can be
// made unpayable as on lnd. Settled invoices come from the daemon's event stream (events.ts).
// LDK learns the chain only when it syncs (every 10 s in the background): given the chain it follows,
// the reads that depend on the chain sync it first whenever the chain's tip has moved, so a caller
// sees an LDK node follow its blocks at once, as lnd does.
import { createHash, randomBytes } from 'node:crypto';
import type { RpcChainDriver } from '../../chain/rpc-driver.js';
import { waitFor } from '../../wait.js';
import { readBolt11 } from '../bolt11.js';
import type { Channel, ChannelControl, ClientOptions, OpenChannelRequest, PendingClose } from '../client.js';
import type { CreatedInvoice, DecodedInvoice, HoldInvoices, Invoice, InvoiceRequest } from '../client.js';
import type { LightningClient, NodeInfo, PaymentLookup, PaymentOutcome } from '../client.js';
import type { KeysendRequest, PayRequest } from '../client.js';
import {
  assetsNeedRgbNode,
  LightningError,
  LightningUnreachable,
  noAnswer,
  nodeFailed,
  nodeRefused,
} from '../errors.js';
import { PaymentPolls } from '../poll.js';
import { channelBalancesSat, LdkError, type LdkChannel, type LdkClient, type LdkPayment } from './api.js';
import { FundingPositions, waitInMempool, waitSpendInMempool } from './chain.js';
import { followLdkEvents } from './events.js';

/** How long one pay request waits for LDK's final answer before the payment is followed by polling. */
const PAY_WAIT_SECS = 60;
/** The daemon's expiry of an invoice that names none. */
const LDK_DEFAULT_EXPIRY_SEC = 3600;

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

type FundedChannel = LdkChannel & { funding_txo: { txid: string; vout: number } };

function channelOf(channel: FundedChannel): Channel {
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

function outcomeOf(payment: LdkPayment, paymentHash: string): PaymentOutcome {
  if (payment.status === 'succeeded')
    return {
      status: 'succeeded',
      paymentHash,
      ...(payment.preimage ? { preimage: payment.preimage } : {}),
      amountMsat: BigInt(payment.amount_msat ?? 0),
      feeMsat: BigInt(payment.fee_paid_msat ?? 0),
    };
  if (payment.status === 'failed')
    return {
      status: 'failed',
      paymentHash,
      reason: `the payment failed (${payment.failure_reason ?? 'LDK gave no reason'})`,
    };
  return { status: 'pending', paymentHash };
}

export class LdkLightning implements LightningClient {
  readonly implementation = 'ldk';
  readonly capabilities = { descriptionHash: true, keysendPreimage: true };
  /** Only with the chain: see LdkConnection. */
  readonly channels?: ChannelControl;
  readonly holdInvoices: HoldInvoices;
  private readonly name: string;
  private readonly polls: PaymentPolls;
  /** The chain height of the node's last sync, and the sync under way. */
  private syncedHeight = -1;
  private syncing?: Promise<void>;

  constructor(
    private readonly api: LdkClient,
    private readonly chain: RpcChainDriver | undefined,
    options: ClientOptions = {},
  ) {
    this.name = options.name ?? this.implementation;
    this.polls = new PaymentPolls((paymentHash) => this.payment(paymentHash), options.pollMs ?? 250);
    if (chain) this.channels = this.channelControl(chain);
    this.holdInvoices = {
      create: (request) => this.addInvoice('the hold invoice', request, request.paymentHash),
      settle: async (preimage) => {
        await this.call('the settle', () => this.api.settleInvoice(sha256(preimage), preimage));
      },
    };
  }

  /** A call of the daemon, its refusals and failures as LightningErrors. */
  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.failure(what, error);
    }
  }

  /** The daemon's refusal (by its status, with its code and words), or its failure. */
  private failure(what: string, error: unknown): LightningError {
    if (error instanceof LightningError) return error;
    if (error instanceof LdkError) {
      if (error.status === 400) return nodeRefused(`${this.name} refused ${what}: ${error.reason}`);
      const said = `${this.name} could not take ${what}: ${error.reason}`;
      if (error.status === 404) return new LightningError('not_found', error.code, said, { cause: error });
      if (error.status === 409) return new LightningError('conflict', error.code, said, { cause: error });
      if (error.status === 503) return new LightningError('unavailable', error.code, said, { cause: error });
      return nodeFailed(`${this.name} could not take ${what}: ${error.message}`, error);
    }
    return noAnswer(`${this.name} could not take ${what}: ${(error as Error).message}`, error);
  }

  async info(): Promise<NodeInfo> {
    const [info, channels] = await this.call('the node info', () =>
      Promise.all([this.api.info(), this.api.channels()]),
    );
    const active = channels.filter((channel) => channel.is_usable).length;
    const pending = channels.filter((channel) => !channel.is_channel_ready).length;
    return {
      pubkey: info.node_id,
      ...(info.alias ? { alias: info.alias } : {}),
      synced: info.synced,
      height: info.block.height,
      peers: info.num_peers,
      channels: { active, pending, inactive: channels.length - active - pending },
    };
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(async () => (await this.sync()) >= height, {
      timeoutMs,
      intervalMs: 100,
      what: `ldk node ${this.name} to sync to height ${height}`,
    });
  }

  newAddress(): Promise<string> {
    return this.call('the address', () => this.api.newAddress());
  }

  async onchainBalance() {
    await this.followChain();
    const { onchain } = await this.call('the balances', () => this.api.balances());
    // spendable: confirmed coins and the node's own unconfirmed change; the rest of the total arrives unconfirmed
    return {
      confirmedSat: onchain.spendable_sat + onchain.anchor_reserve_sat,
      unconfirmedSat: onchain.total_sat - onchain.spendable_sat - onchain.anchor_reserve_sat,
    };
  }

  async channelBalanceMsat(): Promise<bigint> {
    await this.followChain();
    const channels = await this.call('the channels', () => this.api.channels());
    const localSat = channels
      .filter((channel) => channel.is_channel_ready)
      .reduce((sum, channel) => sum + channelBalancesSat(channel).local, 0);
    return BigInt(localSat) * 1000n;
  }

  createInvoice(request: InvoiceRequest): Promise<CreatedInvoice> {
    return this.addInvoice('the invoice', request);
  }

  /** An invoice; a hold invoice when the caller gives its payment hash. */
  private async addInvoice(what: string, request: InvoiceRequest, paymentHash?: string): Promise<CreatedInvoice> {
    if (request.asset) throw assetsNeedRgbNode(this.name);
    const created = await this.call(what, () =>
      this.api.createInvoice({
        amount_msat: request.amountMsat,
        expiry_secs: request.expirySec,
        ...(request.descriptionHash
          ? { description_hash: request.descriptionHash }
          : { description: request.description ?? '' }),
        ...(paymentHash ? { payment_hash: paymentHash } : {}),
      }),
    );
    const expiresAtSec = created.expires_at ?? Date.now() / 1000 + (request.expirySec ?? LDK_DEFAULT_EXPIRY_SEC);
    return { bolt11: created.invoice, paymentHash: created.payment_hash, expiresAt: new Date(expiresAtSec * 1000) };
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const { paymentHash, amountMsat, expiresAt } = readBolt11(bolt11);
    return { paymentHash, amountMsat, expiresAt, asset: null };
  }

  /**
   * LDK keeps an expired invoice pending (and refuses its late payments): once past its expiry the
   * invoice is canceled on the node, which also tells whether a payment was settled just before. A
   * pending invoice whose payment has arrived (LDK's payment_claimable, read from the event log)
   * waits for its preimage: accepted.
   */
  async invoice(paymentHash: string, bolt11?: string): Promise<Invoice | undefined> {
    const payment = await this.call('the invoice lookup', () => this.api.payment(paymentHash));
    if (payment?.direction !== 'inbound') return undefined;
    const amountMsat = BigInt(payment.amount_msat ?? 0);
    const view = (state: Invoice['state'], receivedMsat = 0n): Invoice => ({
      paymentHash,
      state,
      amountMsat,
      receivedMsat,
      ...(state === 'settled' && payment.preimage ? { preimage: payment.preimage } : {}),
    });
    if (payment.status === 'succeeded') return view('settled', amountMsat);
    if (payment.status === 'failed') return view('canceled');
    if (bolt11 !== undefined && readBolt11(bolt11).expiresAt.getTime() <= Date.now()) {
      try {
        await this.api.cancelInvoice(paymentHash);
        return view('canceled');
      } catch (error) {
        if (error instanceof LdkError && error.code === 'ALREADY_SETTLED') return this.invoice(paymentHash);
        throw this.failure(`the cancel of the expired invoice ${paymentHash}`, error);
      }
    }
    const held = (await this.call('the event log', () => this.api.events())).some(
      (event) => event.type === 'payment_claimable' && event.payment_hash === paymentHash,
    );
    return view(held ? 'accepted' : 'open');
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await this.call('the invoice cancel', () => this.api.cancelInvoice(paymentHash));
  }

  watchSettledInvoices(onSettled: (paymentHash: string) => void): () => void {
    return followLdkEvents(this.api.url, (event) => {
      if (event.type === 'payment_received' && event.payment_hash) onSettled(event.payment_hash);
    });
  }

  pay(request: PayRequest): Promise<PaymentOutcome> {
    const { invoice, paymentHash } = readBolt11(request.bolt11);
    return this.send(paymentHash, () =>
      this.api.payInvoice({
        invoice,
        max_fee_msat: request.maxFeeMsat,
        wait_secs: request.timeoutSec ?? PAY_WAIT_SECS,
      }),
    );
  }

  keysend(request: KeysendRequest) {
    const preimage = request.preimage ?? randomBytes(32).toString('hex');
    return this.send(sha256(preimage), () =>
      this.api.keysend({
        pubkey: request.pubkey,
        amount_msat: request.amountMsat,
        preimage,
        max_fee_msat: request.maxFeeMsat,
        wait_secs: request.timeoutSec ?? PAY_WAIT_SECS,
      }),
    );
  }

  /** Sends and follows the payment to LDK's final answer. */
  private async send(paymentHash: string, request: () => Promise<LdkPayment>): Promise<PaymentOutcome> {
    let sent: LdkPayment;
    try {
      sent = await request();
    } catch (error) {
      const failed = (reason: string): PaymentOutcome => ({ status: 'failed', paymentHash, reason });
      // A payment of this hash is under way or done: its own outcome is the answer.
      if (error instanceof LdkError && error.code === 'DUPLICATE_PAYMENT') return this.polls.endOf(paymentHash);
      // Refused before anything was sent (bad invoice, expired, no route, too little balance).
      if (error instanceof LdkError && error.status >= 400 && error.status < 500)
        return failed(`${this.name} refused the payment: ${error.reason}`);
      const failure = noAnswer(`${this.name} did not take the payment: ${(error as Error).message}`, error);
      if (failure instanceof LightningUnreachable) throw failure;
      // The node failed or did not answer: it may have sent it; ask it. One it does not know is
      // failed when the daemon answered (an error of its own); after a lost connection or a
      // time-out it stays pending, for the caller to ask again once the daemon has had time to
      // record it.
      const found = await this.payment(paymentHash).catch((): PaymentLookup => ({ status: 'pending', paymentHash }));
      if (found.status !== 'unknown') return found;
      return error instanceof LdkError ? failed(failure.message) : { status: 'pending', paymentHash };
    }
    return sent.status === 'pending' ? this.polls.endOf(paymentHash) : outcomeOf(sent, paymentHash);
  }

  async payment(paymentHash: string): Promise<PaymentLookup> {
    const payment = await this.call('the payment lookup', () => this.api.payment(paymentHash));
    return payment?.direction === 'outbound' ? outcomeOf(payment, paymentHash) : { status: 'unknown', paymentHash };
  }

  awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    return this.polls.untilEnded(paymentHash);
  }

  close(): void {
    this.polls.close();
  }

  /** Syncs the node when the chain's tip has moved since its last sync; returns the height it synced to. */
  private async sync(): Promise<number> {
    this.syncing ??= this.call('the sync', () => this.api.sync())
      .then((info) => void (this.syncedHeight = info.block.height))
      .finally(() => (this.syncing = undefined));
    await this.syncing;
    return this.syncedHeight;
  }

  private async followChain(): Promise<void> {
    if (this.chain && (await this.chain.getBlockCount()) > this.syncedHeight) await this.sync();
  }

  private channelControl(chain: RpcChainDriver): ChannelControl {
    const positions = new FundingPositions(chain);
    const routable = async () =>
      (await this.call('the graph', () => this.api.graphChannels())).filter(
        (channel) => channel.one_to_two !== null && channel.two_to_one !== null,
      );
    return {
      list: async () => {
        await this.followChain();
        const channels = await this.call('the channels', () => this.api.channels());
        return channels
          .filter((channel): channel is FundedChannel => channel.is_channel_ready && channel.funding_txo !== null)
          .map(channelOf);
      },
      connectPeer: async (pubkey, address) => {
        await this.call('the peer', () => this.api.connectPeer(pubkey, address));
      },
      disconnectPeer: async (pubkey) => {
        await this.call('the disconnect', () => this.api.disconnectPeer(pubkey));
      },
      connectedPeers: async () =>
        (await this.call('the peers', () => this.api.peers()))
          .filter((peer) => peer.is_connected)
          .map((peer) => peer.node_id),
      ping: async () => {
        await this.call('the node info', () => this.api.info());
      },
      // ldk-node has no call to reset its scorer: its penalties fade on their own
      forgetPaymentFailures: async () => {},
      open: (request) => this.openChannel(chain, request),
      close: async (channel, force) => {
        const open = (await this.call('the channels', () => this.api.channels())).find(
          (candidate) =>
            candidate.funding_txo?.txid === channel.fundingTxid && candidate.funding_txo.vout === channel.fundingVout,
        );
        if (!open)
          throw new LightningError(
            'not_found',
            'NO_SUCH_CHANNEL',
            `${this.name} has no open channel funded by ${channel.id}`,
          );
        await this.call('the close', () =>
          this.api.closeChannel({
            user_channel_id: open.user_channel_id,
            counterparty_node_id: open.counterparty_node_id,
            force,
          }),
        );
        return {
          closingTxid: await waitSpendInMempool(chain, { txid: channel.fundingTxid, vout: channel.fundingVout }),
        };
      },
      pendingCloses: () => this.pendingCloses(chain),
      canRouteOver: async (fundingTxid) => {
        const prefix = await positions.prefixOf(fundingTxid);
        if (prefix === undefined) return false;
        return (await routable()).some((channel) => channel.short_channel_id.startsWith(prefix));
      },
      routableChannels: async () => (await routable()).length,
    };
  }

  /** Opens, and returns once the funding transaction is in the chain's mempool (LDK broadcasts it a moment after it answers). */
  private async openChannel(chain: RpcChainDriver, request: OpenChannelRequest) {
    const opened = await this.call('the channel', () =>
      this.api.openChannel({
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
              (await this.api.channels()).find((channel) => channel.user_channel_id === opened.user_channel_id)
                ?.funding_txo ?? undefined,
            {
              timeoutMs: 60_000,
              intervalMs: 200,
              what: `${this.name}'s channel to ${request.partnerPubkey} to be funded`,
            },
          );
    await waitInMempool(chain, funding.txid);
    return { fundingTxid: funding.txid, fundingVout: funding.vout };
  }

  /**
   * Channels being closed: what LDK still has to claim of channels no longer open, by funding
   * transaction (the event log's channel_pending names the funding of each channel id). A sweep
   * whose transaction is confirmed is over: its coins are the on-chain wallet's (LDK keeps listing
   * it until its threshold of confirmations, and the lab counted it twice).
   */
  private async pendingCloses(chain: RpcChainDriver): Promise<PendingClose[]> {
    await this.followChain();
    const [balances, open, events, height] = await Promise.all([
      this.call('the balances', () => this.api.balances()),
      this.call('the channels', () => this.api.channels()),
      this.call('the event log', () => this.api.events()),
      chain.getBlockCount(),
    ]);
    const openIds = new Set(open.map((channel) => channel.channel_id));
    const fundingOf = new Map(
      events
        .filter((event) => event.type === 'channel_pending')
        .map((event) => [event.channel_id as string, (event.funding_txo as { txid: string }).txid]),
    );
    const closing = new Map<string, PendingClose>();
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
}
