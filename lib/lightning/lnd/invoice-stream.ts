// lnd's invoice stream (SubscribeInvoices), kept open for as long as it is watched:
// - a stream that breaks (lnd restarting, or down) is dropped and opened again a second later, asking
//   lnd for every settlement after the last one it delivered (settle_index), so the invoices settled
//   in the gap come first on the new stream;
// - a stream that stays open but says nothing is opened again too: lnd announces each invoice it adds
//   on every stream, so an invoice this server created that no announcement follows within
//   STREAM_SILENCE_MS means the stream is dead (seen after lnd restarts: a stream opened while lnd
//   starts can be accepted and never deliver);
// - the invoices still unannounced when a stream is opened again, including those added while none
//   was open (lnd back, the stream not yet), are asked again of the new one: lnd replays the invoices
//   added after an index, so a new stream that says nothing of them is silent too.
import type { EventEmitter } from 'node:events';
import type { AuthenticatedLnd } from 'ln-service';
import { subscribeToInvoices } from './methods.js';
import type { StreamReopenReason } from '../client.js';

/** How long a broken invoice stream waits before it is opened again. */
const REOPEN_DELAY_MS = 1_000;
/** How long an invoice this server added may go unannounced before the stream is taken for dead. */
export const STREAM_SILENCE_MS = 5_000;
/** How many new streams an unannounced invoice is asked of before it is left to the reconciles. */
const MAX_ASKS = 2;

interface Unannounced {
  /** When it was added, or asked of a new stream. */
  since: number;
  /** lnd's add index for it. */
  addIndex: number;
  /** The new streams it has been asked of. */
  asks: number;
}

interface InvoiceUpdate {
  id: string;
  is_confirmed: boolean;
  confirmed_index?: number;
}

export interface InvoiceStreamEvents {
  onSettled(paymentHash: string): void;
  /** A new stream replaced one that broke or fell silent. */
  onReopened?(reason: StreamReopenReason): void;
}

export class LndInvoiceStream {
  private stopped = false;
  /** Ends the open stream (its gRPC call and listeners); undefined while none is open. */
  private closeOpen: (() => void) | undefined;
  private reopenTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  /** The settle index of the last settlement delivered: where a new stream starts its backlog. */
  private settledUpTo: number | undefined;
  /** Invoices this server added that no stream has announced yet, oldest first. */
  private readonly unannounced = new Map<string, Unannounced>();
  /** Announcements that came before the answer to AddInvoice (or of invoices added by others), a while. */
  private readonly announcedEarly = new Map<string, number>();

  constructor(
    private readonly lnd: AuthenticatedLnd,
    private readonly events: InvoiceStreamEvents,
    private readonly track: (sub: EventEmitter) => () => void,
  ) {
    this.open();
  }

  /** Tells the stream that lnd has just added this invoice (at `addIndex`), so that its announcement is expected. */
  added(paymentHash: string, addIndex: number): void {
    if (this.stopped || this.announcedEarly.delete(paymentHash)) return;
    this.unannounced.set(paymentHash, { since: Date.now(), addIndex, asks: 0 });
    this.watchSilence();
  }

  stop(): void {
    this.stopped = true;
    this.close();
    clearTimeout(this.silenceTimer);
    this.silenceTimer = undefined;
    this.unannounced.clear();
  }

  private open(): void {
    const replayAfter = this.askAgain();
    if (this.unannounced.size > 0) this.watchSilence();
    const sub = subscribeToInvoices({
      lnd: this.lnd,
      ...(replayAfter ? { added_after: replayAfter } : {}),
      ...(this.settledUpTo ? { confirmed_after: this.settledUpTo } : {}),
    });
    this.closeOpen = this.track(sub);
    sub.on('invoice_updated', (invoice: InvoiceUpdate) => this.onUpdate(invoice));
    // also emitted when the stream ends without an error
    sub.once('error', () => this.reopen('broken'));
  }

  private close(): void {
    this.closeOpen?.();
    this.closeOpen = undefined;
    clearTimeout(this.reopenTimer);
  }

  /**
   * The invoices still unannounced get STREAM_SILENCE_MS again on the stream about to open, which
   * replays the invoices added after the index returned; those asked of MAX_ASKS streams already are
   * left to the reconciles (a reopen runs one).
   */
  private askAgain(): number | undefined {
    let replayAfter: number | undefined;
    for (const [hash, invoice] of this.unannounced) {
      if (invoice.asks >= MAX_ASKS) {
        this.unannounced.delete(hash);
        continue;
      }
      invoice.asks += 1;
      invoice.since = Date.now();
      replayAfter = Math.min(replayAfter ?? invoice.addIndex, invoice.addIndex);
    }
    return replayAfter === undefined ? undefined : replayAfter - 1;
  }

  /** A broken stream a second later (lnd is likely down), a silent one at once (lnd has just answered). */
  private reopen(reason: StreamReopenReason): void {
    this.close();
    if (this.stopped) return;
    const reopen = () => {
      this.open();
      this.events.onReopened?.(reason);
    };
    if (reason === 'silent') reopen();
    else this.reopenTimer = setTimeout(reopen, REOPEN_DELAY_MS);
  }

  private onUpdate(invoice: InvoiceUpdate): void {
    if (!this.unannounced.delete(invoice.id) && !invoice.is_confirmed) this.rememberEarly(invoice.id);
    if (invoice.is_confirmed) {
      if (invoice.confirmed_index && invoice.confirmed_index > (this.settledUpTo ?? 0))
        this.settledUpTo = invoice.confirmed_index;
      this.events.onSettled(invoice.id);
    }
  }

  private rememberEarly(paymentHash: string): void {
    const now = Date.now();
    // oldest first (insertion order): drop from the front while expired
    for (const [hash, at] of this.announcedEarly) {
      if (now - at <= STREAM_SILENCE_MS) break;
      this.announcedEarly.delete(hash);
    }
    this.announcedEarly.set(paymentHash, now);
  }

  private watchSilence(): void {
    this.silenceTimer ??= setTimeout(() => this.checkSilence(), STREAM_SILENCE_MS);
  }

  private checkSilence(): void {
    this.silenceTimer = undefined;
    if (this.unannounced.size === 0) return;
    const age = Date.now() - this.unannounced.values().next().value!.since; // the oldest: a Map keeps insertion order
    if (age >= STREAM_SILENCE_MS) return this.reopen('silent');
    this.silenceTimer = setTimeout(() => this.checkSilence(), STREAM_SILENCE_MS - age);
  }
}
