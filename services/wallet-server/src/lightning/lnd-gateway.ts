import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { AuthenticatedLnd } from 'ln-service';
import {
  cancelHodlInvoice,
  decodePaymentRequest,
  getChannelBalance,
  getChannels,
  getInvoice,
  getPayment,
  getWalletInfo,
  subscribeToPastPayment,
  subscribeToPayViaDetails,
  subscribeToPayViaRequest,
} from '../../../../lib/lightning/lnd/methods.js';
import { getDefaultAccountBalance, lndRpc } from '../../../../lib/lightning/lnd/rpc.js';
import {
  NodeError,
  NodeRejected,
  NodeUnreachable,
  type CreateInvoiceInput,
  type CreatedInvoice,
  type DecodedInvoice,
  type InvoiceState,
  type KeysendInput,
  type NodeGateway,
  type PayInvoiceInput,
  type PaymentLookup,
  type PaymentOutcome,
  type StreamReopenReason,
} from './gateway.js';
import { LndInvoiceStream } from '../../../../lib/lightning/lnd/invoice-stream.js';

/** TLV record type of a keysend preimage (what lnd's --accept-keysend reads). */
const KEYSEND_TYPE = '5482373484';

/** ln-service fails with [code, 'Message', {err}]; lnd's own text is in err.details. */
function lndErrorText(err: unknown): string {
  if (Array.isArray(err)) {
    const details = (err[2] as { err?: { details?: string } } | undefined)?.err?.details;
    return [err[1], details].filter(Boolean).join(': ');
  }
  return err instanceof Error ? err.message : String(err);
}

const lndErrorCode = (err: unknown): number | undefined =>
  Array.isArray(err) && typeof err[0] === 'number' ? err[0] : undefined;

async function call<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new NodeError(`lnd ${what} failed: ${lndErrorText(err)}`, { cause: err });
  }
}

// gRPC statuses of a node that cannot be reached or does not work (CANCELLED, DEADLINE_EXCEEDED,
// PERMISSION_DENIED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, UNAUTHENTICATED),
// and lnd's own words for not being ready. Any other answer of lnd is its verdict on the request.
const NODE_FAILURE_GRPC_CODES = new Set([1, 4, 7, 8, 12, 13, 14, 16]);
const NODE_NOT_READY =
  /wallet locked|in the process of starting|not yet ready|still syncing|shutting down|server is not active/i;

/**
 * lnd's AddInvoice alone: ln-service's createInvoice also looks the new invoice up and decodes its
 * request (a second round trip and a signature recovery, much of lnd's work per invoice:
 * bench:wallet) for fields this server does not use.
 */
function addInvoice(
  lnd: AuthenticatedLnd,
  request: Record<string, unknown>,
): Promise<{ r_hash: Uint8Array; payment_request: string; add_index: string }> {
  return lndRpc(lnd, 'default', 'addInvoice', request, 'AddInvoiceError');
}

/** ln-service's own checks, made before anything is sent, answer 4xx. */
const refusedByClient = (err: unknown) => Array.isArray(err) && err[0] >= 400 && err[0] < 500;

/** Whether lnd (or ln-service, checking the arguments for it) refused the request itself. */
function isRefusal(err: unknown): boolean {
  if (!Array.isArray(err)) return false;
  if (refusedByClient(err)) return true;
  const grpc = (err[2] as { err?: { code?: number; details?: string } } | undefined)?.err;
  return (
    typeof grpc?.code === 'number' &&
    !NODE_FAILURE_GRPC_CODES.has(grpc.code) &&
    !NODE_NOT_READY.test(grpc.details ?? '')
  );
}

/** A call carrying the caller's input: lnd's refusal of it is a NodeRejected with lnd's reason (400);
 * a node that cannot be reached or fails is a NodeError (502). */
async function submit<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isRefusal(err)) throw new NodeRejected('NODE_REJECTED', `lnd refused ${what}: ${lndErrorText(err)}`);
    throw new NodeError(`lnd could not take ${what}: ${lndErrorText(err)}`, { cause: err });
  }
}

interface FailedEvent {
  is_insufficient_balance?: boolean;
  is_invalid_payment?: boolean;
  is_pathfinding_timeout?: boolean;
  is_route_not_found?: boolean;
}

function failureReason(f: FailedEvent | undefined): string {
  if (f?.is_insufficient_balance) return 'the node has too little outbound liquidity';
  if (f?.is_invalid_payment) return 'the destination rejected the payment (unknown, expired or already paid invoice)';
  if (f?.is_pathfinding_timeout) return 'no route found before the pathfinding timeout';
  if (f?.is_route_not_found) return 'no route to the destination within the fee limit';
  return 'the payment failed';
}

// lnd refuses these before sending anything: this request never left the node.
const REFUSED_BEFORE_SENDING = /already paid|in transition|already exists|invoice expired|self-payments not allowed/i;

// lnd never saw the call: grpc-js found no connection to place it on, or lnd turned it away unread
// while it cannot work yet. ("shutting down" is left out: a payment lnd took may end that way, and
// lnd resumes it when it starts again.)
const NEVER_REACHED_LND =
  /No connection established|Name resolution failed|wallet locked|in the process of starting|not yet ready|server is not active/i;

export class LndGateway implements NodeGateway {
  readonly kind = 'lnd' as const;
  readonly supportsAssets = false;
  readonly keysendPreimageFromCaller = true;
  private readonly subscriptions = new Set<EventEmitter>();
  private invoiceStream: LndInvoiceStream | undefined;

  constructor(private readonly lnd: AuthenticatedLnd) {}

  async info() {
    const [w, { channels }] = await Promise.all([
      call('getWalletInfo', () => getWalletInfo({ lnd: this.lnd })),
      call('getChannels', () => getChannels({ lnd: this.lnd })),
    ]);
    const active = channels.filter((c) => c.is_active).length;
    return {
      kind: this.kind,
      alias: w.alias,
      pubkey: w.public_key,
      synced: w.is_synced_to_chain,
      height: w.current_block_height,
      peers: w.peers_count,
      channels: { active, pending: w.pending_channels_count, inactive: channels.length - active },
    };
  }

  async balances() {
    const [chain, channel] = await Promise.all([
      call('WalletBalance', () => getDefaultAccountBalance(this.lnd)),
      call('getChannelBalance', () => getChannelBalance({ lnd: this.lnd })),
    ]);
    return {
      onchainSat: BigInt(chain.confirmedSat),
      lightningLocalMsat: BigInt(channel.channel_balance_mtokens ?? BigInt(channel.channel_balance) * 1000n),
    };
  }

  assetBalances(): Promise<never> {
    return Promise.reject(
      new NodeRejected(
        'ASSETS_NEED_RGB_NODE',
        'RGB assets need an RGB Lightning Node (NODE_KIND=rln); this server runs on lnd',
      ),
    );
  }

  async createInvoice(input: CreateInvoiceInput): Promise<CreatedInvoice> {
    if (input.asset)
      throw new NodeRejected(
        'ASSETS_NEED_RGB_NODE',
        'asset_id/asset_amount need an RGB Lightning Node (NODE_KIND=rln); this server runs on lnd',
      );
    const expiresAt = new Date(Date.now() + input.expirySec * 1000);
    const added = await submit('the invoice', () =>
      addInvoice(this.lnd, {
        value_msat: input.amountMsat.toString(),
        expiry: input.expirySec,
        ...(input.descriptionHash
          ? { description_hash: Buffer.from(input.descriptionHash, 'hex') }
          : { memo: input.description ?? '' }),
      }),
    );
    const paymentHash = Buffer.from(added.r_hash).toString('hex');
    this.invoiceStream?.added(paymentHash, Number(added.add_index));
    return { bolt11: added.payment_request, paymentHash, expiresAt };
  }

  async decodeInvoice(bolt11: string): Promise<DecodedInvoice> {
    const d = await submit('the payment request', () => decodePaymentRequest({ lnd: this.lnd, request: bolt11 }));
    return { paymentHash: d.id, amountMsat: d.mtokens ? BigInt(d.mtokens) : null, asset: null };
  }

  async lookupInvoice(paymentHash: string): Promise<InvoiceState | null> {
    let inv;
    try {
      inv = await getInvoice({ lnd: this.lnd, id: paymentHash });
    } catch (err) {
      if (lndErrorCode(err) === 404) return null;
      throw new NodeError(`lnd getInvoice failed: ${lndErrorText(err)}`, { cause: err });
    }
    if (inv.is_confirmed) return { state: 'settled', receivedMsat: BigInt(inv.received_mtokens), preimage: inv.secret };
    if (inv.is_canceled) return { state: 'closed' };
    return { state: 'open' };
  }

  async cancelInvoice(paymentHash: string): Promise<void> {
    await call('cancelInvoice', () => cancelHodlInvoice({ lnd: this.lnd, id: paymentHash }));
  }

  /** lnd's invoice stream, opened again when it breaks or falls silent (lnd-invoice-stream.ts). */
  watchSettledInvoices(
    onSettled: (paymentHash: string) => void,
    onStreamReopened?: (reason: StreamReopenReason) => void,
  ): () => void {
    const stream = new LndInvoiceStream(this.lnd, { onSettled, onReopened: onStreamReopened }, (sub) =>
      this.track(sub),
    );
    this.invoiceStream = stream;
    return () => {
      stream.stop();
      if (this.invoiceStream === stream) this.invoiceStream = undefined;
    };
  }

  payInvoice(input: PayInvoiceInput): Promise<PaymentOutcome> {
    return this.pay(input.paymentHash, () =>
      subscribeToPayViaRequest({
        lnd: this.lnd,
        request: input.bolt11,
        max_fee_mtokens: input.maxFeeMsat.toString(),
      }),
    );
  }

  async keysend(input: KeysendInput): Promise<PaymentOutcome & { paymentHash: string }> {
    const id = createHash('sha256').update(Buffer.from(input.preimage, 'hex')).digest('hex');
    const outcome = await this.pay(id, () =>
      subscribeToPayViaDetails({
        lnd: this.lnd,
        destination: input.destPubkey,
        id,
        mtokens: input.amountMsat.toString(),
        max_fee_mtokens: input.maxFeeMsat.toString(),
        messages: [{ type: KEYSEND_TYPE, value: input.preimage }],
      }),
    );
    return { ...outcome, paymentHash: id };
  }

  /**
   * Starts one payment subscription and follows it to its final answer. What lnd certainly never
   * took is answered at once: refused (failed) or never reached (NodeUnreachable); what it may have
   * taken is asked of it by hash.
   */
  private pay(paymentHash: string, subscribe: () => EventEmitter): Promise<PaymentOutcome> {
    let sub: EventEmitter;
    try {
      sub = subscribe();
    } catch (err) {
      // ln-service checks its arguments before it sends anything, and throws
      return Promise.resolve({
        status: 'failed',
        error: `lnd's client refused the payment: ${lndErrorText(err)}`,
      });
    }
    const untrack = this.track(sub);
    return new Promise<PaymentOutcome>((resolve, reject) => {
      sub.once('confirmed', (p: { fee_mtokens: string; secret: string }) =>
        resolve({ status: 'succeeded', feeMsat: BigInt(p.fee_mtokens), preimage: p.secret }),
      );
      sub.once('failed', (f: FailedEvent) => resolve({ status: 'failed', error: failureReason(f) }));
      sub.once('error', (err: unknown) => {
        const text = lndErrorText(err);
        if (NEVER_REACHED_LND.test(text))
          return reject(new NodeUnreachable(`lnd did not take the payment: ${text}`, { cause: err }));
        if (refusedByClient(err) || REFUSED_BEFORE_SENDING.test(text))
          return resolve({ status: 'failed', error: `lnd refused the payment: ${text}` });
        // Anything else: lnd holds the answer if it took the payment; ask it. A payment lnd does not
        // know is failed only when lnd itself answered the call with a refusal; after a broken
        // connection it stays pending, for the reconcile to refund once lnd has had time to record it.
        this.lookupPayment(paymentHash).then(
          (r) => {
            if (r.status !== 'unknown') return resolve(r);
            resolve(
              isRefusal(err) ? { status: 'failed', error: `lnd refused the payment: ${text}` } : { status: 'pending' },
            );
          },
          () => resolve({ status: 'pending' }),
        );
      });
    }).finally(untrack);
  }

  async lookupPayment(paymentHash: string): Promise<PaymentLookup> {
    try {
      const r = await getPayment({ lnd: this.lnd, id: paymentHash });
      if (r.is_confirmed && r.payment)
        return { status: 'succeeded', feeMsat: BigInt(r.payment.fee_mtokens), preimage: r.payment.secret };
      if (r.is_failed) return { status: 'failed', error: failureReason(r.failed) };
      return { status: 'pending' };
    } catch (err) {
      if (lndErrorCode(err) === 404) return { status: 'unknown' };
      throw new NodeError(`lnd getPayment failed: ${lndErrorText(err)}`, { cause: err });
    }
  }

  awaitPayment(paymentHash: string): Promise<PaymentLookup> {
    const sub = subscribeToPastPayment({ lnd: this.lnd, id: paymentHash });
    const untrack = this.track(sub);
    return new Promise<PaymentLookup>((resolve, reject) => {
      sub.once('confirmed', (p: { fee_mtokens: string; secret: string }) =>
        resolve({ status: 'succeeded', feeMsat: BigInt(p.fee_mtokens), preimage: p.secret }),
      );
      sub.once('failed', (f: FailedEvent) => resolve({ status: 'failed', error: failureReason(f) }));
      // The stream ended without a final state (lnd restarting): still pending, ask again later.
      sub.once('end', () => resolve({ status: 'pending' }));
      sub.once('error', (err: unknown) => {
        if (lndErrorCode(err) === 404) resolve({ status: 'unknown' });
        else reject(new NodeError(`lnd payment tracking failed: ${lndErrorText(err)}`, { cause: err }));
      });
    }).finally(untrack);
  }

  private track(sub: EventEmitter): () => void {
    this.subscriptions.add(sub);
    return () => {
      this.subscriptions.delete(sub);
      sub.removeAllListeners();
    };
  }

  async close(): Promise<void> {
    for (const sub of this.subscriptions) sub.removeAllListeners();
    this.subscriptions.clear();
  }
}
