// The lnd client's hold on lnd's invoice stream, against a double of lnd's gRPC client (its
// SubscribeInvoices call as grpc-js returns it: an emitter of data/error/end with cancel()). The real
// stream across an lnd restart is tested in test/wallet-server/node-outage.test.ts.
import { EventEmitter } from 'node:events';
import type { AuthenticatedLnd } from 'ln-service';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LndInvoiceStream, STREAM_SILENCE_MS } from '../../lib/lightning/lnd/invoice-stream.js';

class GrpcCallDouble extends EventEmitter {
  cancelled = false;
  cancel() {
    this.cancelled = true;
  }
}

/** lnd's Lightning client as far as SubscribeInvoices goes: every call and its arguments, kept. */
function lndDouble() {
  const calls: { args: { add_index?: string; settle_index?: string }; call: GrpcCallDouble }[] = [];
  const lnd = {
    default: {
      subscribeInvoices: (args: { add_index?: string; settle_index?: string }) => {
        const call = new GrpcCallDouble();
        calls.push({ args, call });
        return call;
      },
    },
  } as unknown as AuthenticatedLnd;
  return { lnd, calls, current: () => calls.at(-1)!.call };
}

/** An invoice as lnd's stream sends it (the fields ln-service reads). */
function rpcInvoice(hash: string, addIndex: number, settleIndex = 0) {
  const now = String(Math.floor(Date.now() / 1000));
  return {
    r_hash: Buffer.from(hash, 'hex'),
    r_preimage: Buffer.alloc(32, 1),
    payment_addr: Buffer.alloc(32, 2),
    memo: '',
    description_hash: Buffer.alloc(0),
    value: '1',
    value_msat: '1000',
    amt_paid_msat: settleIndex ? '1000' : '0',
    settled: settleIndex > 0,
    state: settleIndex ? 'SETTLED' : 'OPEN',
    add_index: String(addIndex),
    settle_index: String(settleIndex),
    creation_date: now,
    settle_date: settleIndex ? now : '0',
    expiry: '3600',
    cltv_expiry: '40',
    payment_request: 'lnbcrt10n1',
    fallback_addr: '',
    features: {},
    htlcs: [],
    is_keysend: false,
    is_amp: false,
    route_hints: [],
    private: false,
  };
}

const HASH_A = 'aa'.repeat(32);
const HASH_B = 'bb'.repeat(32);

describe("the wallet server's lnd invoice stream", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('passes on settlements, and keeps a stream that announces the invoices added', () => {
    const { lnd, calls, current } = lndDouble();
    const settled: string[] = [];
    const reopened: string[] = [];
    const stream = new LndInvoiceStream(
      lnd,
      { onSettled: (hash) => settled.push(hash), onReopened: (why) => reopened.push(why) },
      track,
    );
    stream.added(HASH_A, 1);
    current().emit('data', rpcInvoice(HASH_A, 1));
    current().emit('data', rpcInvoice(HASH_A, 1, 1));
    vi.advanceTimersByTime(STREAM_SILENCE_MS * 3);
    expect(settled).toEqual([HASH_A]);
    expect(reopened).toEqual([]);
    expect(calls).toHaveLength(1);
    stream.stop();
    expect(current().cancelled).toBe(true);
  });

  it('opens a new stream when an invoice added is not announced in time, and says it fell silent', () => {
    const { lnd, calls } = lndDouble();
    const reopened: string[] = [];
    const stream = new LndInvoiceStream(
      lnd,
      { onSettled: () => undefined, onReopened: (why) => reopened.push(why) },
      track,
    );
    const silent = calls[0]!.call;
    stream.added(HASH_A, 1);
    vi.advanceTimersByTime(STREAM_SILENCE_MS - 1);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(silent.cancelled).toBe(true);
    expect(calls).toHaveLength(2);
    expect(reopened).toEqual(['silent']);
    stream.stop();
  });

  it('does not take an announcement that came before the answer to AddInvoice for silence', () => {
    const { lnd, calls, current } = lndDouble();
    const stream = new LndInvoiceStream(lnd, { onSettled: () => undefined }, track);
    current().emit('data', rpcInvoice(HASH_B, 7));
    stream.added(HASH_B, 7);
    vi.advanceTimersByTime(STREAM_SILENCE_MS * 2);
    expect(calls).toHaveLength(1);
    stream.stop();
  });

  it('opens a broken stream again a second later, from the last settlement it delivered', () => {
    const { lnd, calls, current } = lndDouble();
    const reopened: string[] = [];
    const stream = new LndInvoiceStream(
      lnd,
      { onSettled: () => undefined, onReopened: (why) => reopened.push(why) },
      track,
    );
    expect(calls[0]!.args.settle_index).toBeUndefined();
    current().emit('data', rpcInvoice(HASH_A, 3, 5));
    current().emit('error', Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
    vi.advanceTimersByTime(999);
    expect(calls).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args.settle_index).toBe('5');
    expect(reopened).toEqual(['broken']);
    stream.stop();
    vi.advanceTimersByTime(10_000);
    expect(calls).toHaveLength(2);
  });

  it('asks a new stream for an invoice added while none was open, and keeps that stream when it announces it', () => {
    const { lnd, calls, current } = lndDouble();
    const reopened: string[] = [];
    const stream = new LndInvoiceStream(
      lnd,
      { onSettled: () => undefined, onReopened: (why) => reopened.push(why) },
      track,
    );
    current().emit('error', Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
    stream.added(HASH_A, 12); // lnd answered AddInvoice before the stream was opened again
    vi.advanceTimersByTime(1_000);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args.add_index).toBe('11');
    current().emit('data', rpcInvoice(HASH_A, 12));
    vi.advanceTimersByTime(STREAM_SILENCE_MS * 3);
    expect(calls).toHaveLength(2);
    expect(reopened).toEqual(['broken']);
    stream.stop();
  });

  it('takes a new stream that does not replay an unannounced invoice for silent too, and leaves the invoice to the reconciles after two', () => {
    const { lnd, calls, current } = lndDouble();
    const reopened: string[] = [];
    const stream = new LndInvoiceStream(
      lnd,
      { onSettled: () => undefined, onReopened: (why) => reopened.push(why) },
      track,
    );
    current().emit('error', Object.assign(new Error('14 UNAVAILABLE: Connection dropped'), { code: 14 }));
    stream.added(HASH_A, 12);
    vi.advanceTimersByTime(1_000);
    vi.advanceTimersByTime(STREAM_SILENCE_MS);
    expect(calls).toHaveLength(3);
    expect(calls[2]!.args.add_index).toBe('11');
    vi.advanceTimersByTime(STREAM_SILENCE_MS);
    expect(calls).toHaveLength(4);
    expect(calls[3]!.args.add_index).toBeUndefined();
    vi.advanceTimersByTime(STREAM_SILENCE_MS * 4);
    expect(calls).toHaveLength(4);
    expect(reopened).toEqual(['broken', 'silent', 'silent']);
    stream.stop();
  });
});

/** What the lnd client does with each subscription: the returned function removes its listeners. */
function track(sub: EventEmitter): () => void {
  return () => sub.removeAllListeners();
}
