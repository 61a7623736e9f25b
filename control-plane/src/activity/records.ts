// Each payment of an activity, as it ended, and the figures read from them: counts, failures by
// reason, payments a second. Exported as JSON and CSV.

export type PaymentOutcomeName = 'succeeded' | 'failed' | 'pending';

export interface PaymentRecord {
  /** When the payment was sent (ISO 8601). */
  time: string;
  /** Which part of the activity decided it: `random`, or `flow:N` (N from 0, in the order given). */
  source: string;
  /** Its place in that part's sequence, from 1. */
  seq: number;
  from: string;
  to: string;
  amountSat: number;
  /** Routing fee; 0 when it failed. */
  feeMsat: string;
  /** Channels it went over, when the payer tells (an LDK node does not). */
  hops?: number;
  latencyMs: number;
  outcome: PaymentOutcomeName;
  /** For a payment that did not succeed: the node's reason, or why it could not be asked. */
  reason?: string;
  /** PAYMENT_FAILED (the node gave it up), or the error code of a payment the node could not be asked for. */
  code?: string;
  paymentHash?: string;
}

/** The time over which payments a second are counted. */
const RATE_WINDOW_MS = 10_000;
/** Records kept of one run; beyond it the oldest go (a day of the default lab's rate fits). */
const KEPT_RECORDS = 500_000;

export interface ActivityFigures {
  attempted: number;
  succeeded: number;
  failed: number;
  /** Payments still unresolved when the activity stopped following them. */
  pending: number;
  /** Payments ended (succeeded or failed) a second over the last 10 s. */
  paymentsPerSecond: number;
  amountSatSucceeded: number;
  feeMsatPaid: string;
  failuresByReason: Record<string, number>;
}

export class PaymentRecords {
  private readonly records: PaymentRecord[] = [];
  private readonly endedAt: number[] = [];
  private succeeded = 0;
  private failed = 0;
  private pending = 0;
  private amountSatSucceeded = 0;
  private feeMsatPaid = 0n;
  private readonly failuresByReason: Record<string, number> = {};

  add(record: PaymentRecord, now = Date.now()): void {
    this.records.push(record);
    if (this.records.length > KEPT_RECORDS) this.records.shift();
    if (record.outcome === 'succeeded') {
      this.succeeded += 1;
      this.amountSatSucceeded += record.amountSat;
      this.feeMsatPaid += BigInt(record.feeMsat);
    } else if (record.outcome === 'failed') {
      this.failed += 1;
      const reason = record.reason ?? 'no reason given';
      this.failuresByReason[reason] = (this.failuresByReason[reason] ?? 0) + 1;
    } else this.pending += 1;
    this.endedAt.push(now);
  }

  /** The records, oldest first. */
  all(): readonly PaymentRecord[] {
    return this.records;
  }

  figures(now = Date.now()): ActivityFigures {
    while (this.endedAt.length > 0 && this.endedAt[0] < now - RATE_WINDOW_MS) this.endedAt.shift();
    return {
      attempted: this.succeeded + this.failed + this.pending,
      succeeded: this.succeeded,
      failed: this.failed,
      pending: this.pending,
      paymentsPerSecond: Math.round((this.endedAt.length / (RATE_WINDOW_MS / 1000)) * 10) / 10,
      amountSatSucceeded: this.amountSatSucceeded,
      feeMsatPaid: this.feeMsatPaid.toString(),
      failuresByReason: { ...this.failuresByReason },
    };
  }
}

const CSV_COLUMNS: [string, (record: PaymentRecord) => string | number | undefined][] = [
  ['time', (record) => record.time],
  ['source', (record) => record.source],
  ['seq', (record) => record.seq],
  ['from', (record) => record.from],
  ['to', (record) => record.to],
  ['amount_sat', (record) => record.amountSat],
  ['fee_msat', (record) => record.feeMsat],
  ['hops', (record) => record.hops],
  ['latency_ms', (record) => record.latencyMs],
  ['outcome', (record) => record.outcome],
  ['code', (record) => record.code],
  ['reason', (record) => record.reason],
  ['payment_hash', (record) => record.paymentHash],
];

/** A field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break. */
function csvField(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The records as CSV, one line each under a header line. */
export function recordsAsCsv(records: readonly PaymentRecord[]): string {
  const lines = [CSV_COLUMNS.map(([name]) => name).join(',')];
  for (const record of records) lines.push(CSV_COLUMNS.map(([, value]) => csvField(value(record))).join(','));
  return `${lines.join('\n')}\n`;
}
