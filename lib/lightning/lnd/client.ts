// An lnd node, over ln-service (each function loaded on first use: methods.ts) and, where
// ln-service's function does more work in lnd than needed, lnd's RPCs themselves (rpc.ts).
import { createHash, randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { AuthenticatedLnd, GetInvoiceResult, GetPaymentResult, UnauthenticatedLnd } from 'ln-service';
import { waitFor } from '../../wait.js';
import { readBolt11 } from '../bolt11.js';
import type {
  Channel,
  ChannelControl,
  ClientOptions,
  CreatedInvoice,
  DecodedInvoice,
  HoldInvoices,
  Invoice,
  InvoiceRequest,
  KeysendRequest,
  LightningClient,
  NodeInfo,
  OnchainSend,
  PayRequest,
  PaymentLookup,
  PaymentOutcome,
  PendingClose,
  StreamReopenReason,
} from '../client.js';
import { assetsNeedRgbNode, LightningError, peerLost } from '../errors.js';
import { connectLnd, connectLndUnauthenticated, type LndCredentials } from './connection.js';
import {
  failureReason,
  isRefusal,
  lndCall,
  lndErrorStatus,
  lndErrorText,
  lndFailure,
  neverReachedLnd,
  openLostPeer,
  REFUSED_BEFORE_SENDING,
  refusedByClient,
  type FailedPayment,
} from './errors.js';
import { LndInvoiceStream } from './invoice-stream.js';
import {
  addPeer,
  cancelHodlInvoice,
  closeChannel,
  createChainAddress,
  createHodlInvoice,
  deleteForwardingReputations,
  getChannelBalance,
  getChannels,
  getInvoice,
  getNetworkGraph,
  getPayment,
  getPeers,
  getPendingChannels,
  getWalletStatus,
  openChannel,
  removePeer,
  sendToChainAddress,
  settleHodlInvoice,
  subscribeToPastPayment,
  subscribeToPayViaDetails,
  subscribeToPayViaRequest,
} from './methods.js';
import { getBestBlock, getDefaultAccountBalance, getInfo, lndRpc } from './rpc.js';

/** TLV record type of a keysend preimage (what lnd's --accept-keysend reads). */
const KEYSEND_TYPE = '5482373484';

/** lnd's expiry of an invoice that names none. */
const LND_DEFAULT_EXPIRY_SEC = 86_400;

/** A payment as ln-service reports one that succeeded; `mtokens` includes the fee. */
interface PaidPayment {
  id: string;
  secret?: string;
  mtokens: string;
  fee_mtokens: string;
  hops: unknown[];
}

const succeeded = (paid: PaidPayment): PaymentOutcome => ({
  status: 'succeeded',
  paymentHash: paid.id,
  preimage: paid.secret,
  amountMsat: BigInt(paid.mtokens) - BigInt(paid.fee_mtokens),
  feeMsat: BigInt(paid.fee_mtokens),
  hops: paid.hops.length,
});

type GraphChannel = { transaction_id: string; policies: { cltv_delta?: number }[] };
const routable = (channel: GraphChannel) =>
  channel.policies.length === 2 && channel.policies.every((policy) => policy.cltv_delta !== undefined);

/**
 * Blocks until a force-closed channel's own funds can be swept. lnd answers 0 blocks (and maturity
 * height 0) until its resolver has seen the commitment confirmed: that is "not known yet", not "now".
 * lnd counts below zero once the funds matured, until its sweep confirms.
 */
export const blocksUntilSweep = (channel: { timelock_blocks?: number; timelock_expiration?: number }) =>
  channel.timelock_blocks === undefined || !channel.timelock_expiration
    ? undefined
    : Math.max(0, channel.timelock_blocks);

/**
 * Blocks lnd has processed past a maturity after which funds still not swept are overdue: lnd
 * publishes its sweep at maturity and the next block confirms it.
 */
const SWEEP_OVERDUE_BLOCKS = 3;

/**
 * Whether a force close's matured funds are overdue for their sweep (PendingClose.sweepOverdue), by
 * the height lnd has processed: one catching up on many blocks mined at once is not late yet. A
 * close with HTLCs still in it waits for their timeouts, however long ago its own funds matured.
 */
export const sweepOverdue = (
  channel: { timelock_expiration?: number; pending_payments?: unknown[] },
  lndHeight: number,
) =>
  channel.timelock_expiration &&
  !channel.pending_payments?.length &&
  lndHeight - channel.timelock_expiration >= SWEEP_OVERDUE_BLOCKS
    ? true
    : undefined;

/** lnd's payment timeout, which ln-service calls its pathfinding timeout. */
const paymentTimeout = (timeoutSec: number | undefined) =>
  timeoutSec === undefined ? {} : { pathfinding_timeout: timeoutSec * 1000 };

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

export class LndLightning implements LightningClient {
  readonly implementation = 'lnd';
  readonly capabilities = { descriptionHash: true, keysendPreimage: true };
  readonly channels: ChannelControl;
  readonly holdInvoices: HoldInvoices;
  private readonly lnd: AuthenticatedLnd;
  /** lnd's State service, which answers without a macaroon. */
  private readonly state: UnauthenticatedLnd;
  private readonly name: string;
  private readonly subscriptions = new Set<EventEmitter>();
  private invoiceStream: LndInvoiceStream | undefined;

  constructor(credentials: LndCredentials, options: ClientOptions = {}) {
    this.lnd = connectLnd(credentials);
    this.state = connectLndUnauthenticated(credentials.socket, credentials.certBase64);
    this.name = options.name ?? this.implementation;
    this.channels = this.channelControl();
    this.holdInvoices = {
      create: (request) => this.createHoldInvoice(request),
      settle: (preimage) => this.call('the settle', () => settleHodlInvoice({ lnd: this.lnd, secret: preimage }), true),
    };
  }

  /** A call of lnd; `refusable` when it carries the caller's input (see lndCall). */
  private call<T>(what: string, call: () => Promise<T>, refusable = false): Promise<T> {
    return lndCall(this.name, what, call, refusable);
  }

  /**
   * Whether lnd has started everything (SERVER_ACTIVE): it answers GetInfo, and may say it is
   * synced, while its peer server is still starting and refuses connections.
   */
  async serverActive(): Promise<boolean> {
    return (await this.call('the state', () => getWalletStatus({ lnd: this.state }))).is_ready === true;
  }

  async info(): Promise<NodeInfo> {
    const info = await this.call('the node info', () => getInfo(this.lnd));
    return {
      pubkey: info.identity_pubkey,
      alias: info.alias,
      synced: info.synced_to_chain,
      height: info.block_height,
      peers: info.num_peers,
      channels: {
        active: info.num_active_channels,
        pending: info.num_pending_channels,
        inactive: info.num_inactive_channels,
      },
    };
  }

  /**
   * Whether lnd says it is synced and reaches its chain node now. After the chain node restarts,
   * lnd's chain client dials it again with a wait that grows 5 s per attempt up to a minute (btcd's
   * rpcclient), and GetInfo says synced all that time from the blocks it had.
   */
  async followsChain(): Promise<boolean> {
    if (!(await this.info()).synced) return false;
    await this.call('the chain tip', () => getBestBlock(this.lnd));
    return true;
  }

  async waitSynced(height: number, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        const info = await getInfo(this.lnd);
        return info.synced_to_chain && info.block_height >= height;
      },
      { timeoutMs, intervalMs: 100, what: `lnd node ${this.name} to sync to height ${height}` },
    );
  }

  async newAddress(): Promise<string> {
    return (await this.call('the address', () => createChainAddress({ lnd: this.lnd, format: 'p2wpkh' }))).address;
  }

  onchainBalance() {
    return this.call('the wallet balance', () => getDefaultAccountBalance(this.lnd));
  }

  async channelBalanceMsat(): Promise<bigint> {
    const balance = await this.call('the channel balance', () => getChannelBalance({ lnd: this.lnd }));
    return BigInt(balance.channel_balance_mtokens ?? BigInt(balance.channel_balance) * 1000n);
  }

  /**
   * lnd's AddInvoice alone: ln-service's createInvoice also looks the new invoice up and decodes its
   * request (a second round trip and a signature recovery, much of lnd's work per invoice:
   * bench:wallet) for fields no caller uses.
   */
  async createInvoice(request: InvoiceRequest): Promise<CreatedInvoice> {
    if (request.asset) throw assetsNeedRgbNode(this.name);
    const added = await this.call(
      'the invoice',
      () =>
        lndRpc<{ r_hash: Uint8Array; payment_request: string; add_index: string }>(
          this.lnd,
          'default',
          'addInvoice',
          {
            value_msat: request.amountMsat.toString(),
            ...(request.expirySec === undefined ? {} : { expiry: request.expirySec }),
            ...(request.descriptionHash
              ? { description_hash: Buffer.from(request.descriptionHash, 'hex') }
              : { memo: request.description ?? '' }),
          },
          'AddInvoiceError',
        ),
      true,
    );
    const paymentHash = Buffer.from(added.r_hash).toString('hex');
    this.invoiceStream?.added(paymentHash, Number(added.add_index));
    return { bolt11: added.payment_request, paymentHash, expiresAt: this.expiryOf(request) };
  }

  private async createHoldInvoice(request: InvoiceRequest & { paymentHash: string }): Promise<CreatedInvoice> {
    const expiresAt = this.expiryOf(request);
    const created = await this.call(
      'the hold invoice',
      () =>
        createHodlInvoice({
          lnd: this.lnd,
          id: request.paymentHash,
          mtokens: request.amountMsat.toString(),
          description: request.description,
          expires_at: request.expirySec === undefined ? undefined : expiresAt.toISOString(),
        }),
      true,
    );
    return { bolt11: created.request, paymentHash: created.id, expiresAt };
  }

  private expiryOf(request: InvoiceRequest): Date {
    return new Date(Date.now() + (request.expirySec ?? LND_DEFAULT_EXPIRY_SEC) * 1000);
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const { paymentHash, amountMsat, expiresAt } = readBolt11(bolt11);
    return { paymentHash, amountMsat, expiresAt, asset: null };
  }

  async invoice(paymentHash: string): Promise<Invoice | undefined> {
    let invoice: GetInvoiceResult & { mtokens?: string };
    try {
      invoice = await getInvoice({ lnd: this.lnd, id: paymentHash });
    } catch (error) {
      if (lndErrorStatus(error) === 404) return undefined;
      throw lndFailure(`${this.name} could not look the invoice up: ${lndErrorText(error)}`, error);
    }
    const state = invoice.is_confirmed
      ? 'settled'
      : invoice.is_canceled
        ? 'canceled'
        : invoice.is_held
          ? 'accepted'
          : 'open';
    return {
      paymentHash,
      state,
      amountMsat: BigInt(invoice.mtokens ?? BigInt(invoice.tokens) * 1000n),
      // a canceled invoice received nothing, whatever HTLCs it held before
      receivedMsat: state === 'canceled' ? 0n : BigInt(invoice.received_mtokens),
      ...(state === 'settled' && invoice.secret ? { preimage: invoice.secret } : {}),
    };
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await this.call('the invoice cancel', () => cancelHodlInvoice({ lnd: this.lnd, id: paymentHash }), true);
  }

  /** lnd's invoice stream, opened again when it breaks or falls silent (invoice-stream.ts). */
  watchSettledInvoices(
    onSettled: (paymentHash: string) => void,
    onReopened?: (reason: StreamReopenReason) => void,
  ): () => void {
    const stream = new LndInvoiceStream(this.lnd, { onSettled, onReopened }, (sub) => this.track(sub));
    this.invoiceStream = stream;
    return () => {
      stream.stop();
      if (this.invoiceStream === stream) this.invoiceStream = undefined;
    };
  }

  pay(request: PayRequest): Promise<PaymentOutcome> {
    const { invoice, paymentHash } = readBolt11(request.bolt11);
    return this.follow(paymentHash, () =>
      subscribeToPayViaRequest({
        lnd: this.lnd,
        request: invoice,
        ...(request.maxFeeMsat === undefined ? {} : { max_fee_mtokens: request.maxFeeMsat.toString() }),
        ...paymentTimeout(request.timeoutSec),
      }),
    );
  }

  keysend(request: KeysendRequest): Promise<PaymentOutcome> {
    const preimage = request.preimage ?? randomBytes(32).toString('hex');
    const paymentHash = sha256(preimage);
    return this.follow(paymentHash, () =>
      subscribeToPayViaDetails({
        lnd: this.lnd,
        destination: request.pubkey,
        id: paymentHash,
        mtokens: request.amountMsat.toString(),
        ...(request.maxFeeMsat === undefined ? {} : { max_fee_mtokens: request.maxFeeMsat.toString() }),
        ...paymentTimeout(request.timeoutSec),
        messages: [{ type: KEYSEND_TYPE, value: preimage }],
      }),
    );
  }

  /**
   * Starts one payment subscription and follows it to its final answer. What lnd certainly never
   * took is answered at once: refused (failed) or never reached (LightningUnreachable); what it may
   * have taken is asked of it by hash.
   */
  private follow(paymentHash: string, subscribe: () => EventEmitter): Promise<PaymentOutcome> {
    const failed = (reason: string): PaymentOutcome => ({ status: 'failed', paymentHash, reason });
    let sub: EventEmitter;
    try {
      sub = subscribe();
    } catch (error) {
      // ln-service checks its arguments before it sends anything, and throws
      return Promise.resolve(failed(`${this.name}'s client refused the payment: ${lndErrorText(error)}`));
    }
    const untrack = this.track(sub);
    return new Promise<PaymentOutcome>((resolve, reject) => {
      sub.once('confirmed', (paid: PaidPayment) => resolve(succeeded({ ...paid, id: paymentHash })));
      sub.once('failed', (failure: FailedPayment) => resolve(failed(failureReason(failure))));
      sub.once('error', (error: unknown) => {
        const text = lndErrorText(error);
        if (neverReachedLnd(error)) return reject(lndFailure(`${this.name} did not take the payment: ${text}`, error));
        if (refusedByClient(error) || REFUSED_BEFORE_SENDING.test(text))
          return resolve(failed(`${this.name} refused the payment: ${text}`));
        // Anything else: lnd holds the answer if it took the payment; ask it. A payment lnd does not
        // know is failed only when lnd itself answered the call with a refusal; after a broken
        // connection it stays pending, for the caller to ask again once lnd has had time to record it.
        this.payment(paymentHash).then(
          (found) => {
            if (found.status !== 'unknown') return resolve(found);
            resolve(
              isRefusal(error)
                ? failed(`${this.name} refused the payment: ${text}`)
                : { status: 'pending', paymentHash },
            );
          },
          () => resolve({ status: 'pending', paymentHash }),
        );
      });
    }).finally(untrack);
  }

  async payment(paymentHash: string): Promise<PaymentLookup> {
    let found: GetPaymentResult;
    try {
      found = await getPayment({ lnd: this.lnd, id: paymentHash });
    } catch (error) {
      if (lndErrorStatus(error) === 404) return { status: 'unknown', paymentHash };
      throw lndFailure(`${this.name} could not look the payment up: ${lndErrorText(error)}`, error);
    }
    if (found.is_confirmed && found.payment) return succeeded({ ...found.payment, id: paymentHash });
    if (found.is_failed) return { status: 'failed', paymentHash, reason: failureReason(found.failed) };
    return { status: 'pending', paymentHash };
  }

  awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    const sub = subscribeToPastPayment({ lnd: this.lnd, id: paymentHash });
    const untrack = this.track(sub);
    return new Promise<PaymentLookup>((resolve, reject) => {
      sub.once('confirmed', (paid: PaidPayment) => resolve(succeeded({ ...paid, id: paymentHash })));
      sub.once('failed', (failure: FailedPayment) =>
        resolve({ status: 'failed', paymentHash, reason: failureReason(failure) }),
      );
      // The stream ended without a final state (lnd restarting): still pending, ask again later.
      sub.once('end', () => resolve({ status: 'pending', paymentHash }));
      sub.once('error', (error: unknown) => {
        if (lndErrorStatus(error) === 404) resolve({ status: 'unknown', paymentHash });
        else reject(lndFailure(`${this.name} could not follow the payment: ${lndErrorText(error)}`, error));
      });
    }).finally(untrack);
  }

  /** lnd picks the coins as it builds the transaction: callers that send at once queue their sends (the faucet does). */
  async sendOnchain(request: OnchainSend): Promise<string> {
    try {
      const sent = await sendToChainAddress({
        lnd: this.lnd,
        address: request.address,
        tokens: request.amountSat,
        ...(request.minConfirmations === undefined ? {} : { utxo_confirmations: request.minConfirmations }),
        ...(request.label === undefined ? {} : { description: request.label }),
      });
      return sent.id;
    } catch (error) {
      const [, code, details] = Array.isArray(error) ? error : [];
      const detail = (details as { err?: { details?: string } } | undefined)?.err?.details;
      if (code === 'InsufficientBalanceToSendToChainAddress' || /insufficient funds/i.test(detail ?? ''))
        throw new LightningError('conflict', 'INSUFFICIENT_FUNDS', detail ?? code, { cause: error });
      throw lndFailure(`${this.name}: ${lndErrorText(error)}`, error);
    }
  }

  close(): void {
    for (const sub of this.subscriptions) sub.removeAllListeners();
    this.subscriptions.clear();
  }

  private track(sub: EventEmitter): () => void {
    this.subscriptions.add(sub);
    return () => {
      this.subscriptions.delete(sub);
      sub.removeAllListeners();
    };
  }

  private channelControl(): ChannelControl {
    const lnd = this.lnd;
    const call = <T>(what: string, run: () => Promise<T>) => this.call(what, run);
    return {
      list: async (): Promise<Channel[]> => {
        const { channels } = await this.call('the channels', () => getChannels({ lnd }));
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
      },
      connectPeer: async (pubkey, address) => {
        await call('the peer', () =>
          addPeer({ lnd, public_key: pubkey, socket: address, retry_count: 5, retry_delay: 200 }),
        );
      },
      disconnectPeer: async (pubkey) => {
        await call('the disconnect', () => removePeer({ lnd, public_key: pubkey }));
      },
      connectedPeers: async () =>
        (await call('the peers', () => getPeers({ lnd }))).peers.map((peer) => peer.public_key),
      // lnd's State service: GetInfo waits for the chain backend while lnd reconnects to it
      ping: async () => {
        await call('the state', () => getWalletStatus({ lnd: this.state }));
      },
      // lnd's mission control: a pair that failed a payment is avoided for about an hour
      forgetPaymentFailures: async () => {
        await call('the reset of its mission control', () => deleteForwardingReputations({ lnd }));
      },
      open: async (request) => {
        const opened = await call('the channel', () =>
          openChannel({
            lnd,
            partner_public_key: request.partnerPubkey,
            partner_socket: request.partnerAddress,
            local_tokens: request.capacitySat,
            give_tokens: request.pushSat,
            is_private: request.private ?? false,
          }).catch((error: unknown) => {
            if (!openLostPeer(error)) throw error;
            throw peerLost(
              `${this.name} lost its connection to ${request.partnerPubkey} before the channel open began (${lndErrorText(error)}): nothing was funded`,
              error,
            );
          }),
        );
        return { fundingTxid: opened.transaction_id, fundingVout: opened.transaction_vout };
      },
      close: async (channel, force) => {
        const outpoint = { lnd, transaction_id: channel.fundingTxid, transaction_vout: channel.fundingVout };
        const closed = await call('the close', () =>
          force ? closeChannel({ ...outpoint, is_force_close: true }) : closeChannel(outpoint),
        );
        return { closingTxid: closed.transaction_id };
      },
      pendingCloses: async (): Promise<PendingClose[]> => {
        const [{ pending_channels }, { height }] = await Promise.all([
          this.call('the pending channels', () => getPendingChannels({ lnd })),
          this.info(),
        ]);
        return pending_channels
          .filter((channel) => channel.is_closing)
          .map((channel) => ({
            fundingTxid: channel.transaction_id,
            closingTxid: channel.close_transaction_id,
            blocksUntilSweep: blocksUntilSweep(channel),
            sweepOverdue: sweepOverdue(channel, height),
            pendingSat: channel.pending_balance ?? channel.local_balance,
          }));
      },
      canRouteOver: async (fundingTxid) => {
        const { channels } = await this.call('the graph', () => getNetworkGraph({ lnd }));
        return channels.some((channel) => channel.transaction_id === fundingTxid && routable(channel));
      },
      routableChannels: async () =>
        (await this.call('the graph', () => getNetworkGraph({ lnd }))).channels.filter(routable).length,
    };
  }
}
