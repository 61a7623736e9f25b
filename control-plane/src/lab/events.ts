import type { ActivityFigures } from '../activity/records.js';
import type { LinkSummary } from '../network/model.js';
import type { LabStatus, ServiceStatus } from './state.js';

/** What a `reglab net` command does to the lab's links. */
export type NetworkChange = 'delay' | 'bandwidth' | 'loss' | 'partition' | 'heal';

export type LabEvent =
  | { type: 'lab'; lab: string; status: LabStatus; message?: string }
  | {
      type: 'service';
      lab: string;
      service: string;
      status: ServiceStatus;
      message?: string;
      info?: Record<string, string>;
      restarts?: number;
      logTail?: string;
    }
  /** A docker lab's container engine stopped answering, or answers again (its containers run on without it). */
  | { type: 'engine'; lab: string; answering: boolean; address?: string; since: string; message?: string }
  | { type: 'phase'; lab: string; phase: string; ms: number }
  | { type: 'image'; lab: string; line: string }
  | { type: 'blocks'; lab: string; height: number; mined: number }
  | {
      type: 'job';
      lab: string;
      job: string;
      queue: string;
      state: 'completed' | 'failed';
      result?: unknown;
      error?: string;
      /** The failure's stable code, where it has one (PAYMENT_FAILED, SERVICE_NOT_READY, ...). */
      code?: string;
      /** From when the job was queued to when it ended, retries included. */
      ms: number;
    }
  | {
      type: 'payment';
      lab: string;
      from: string;
      to?: string;
      amountSat: number;
      feeSat: number;
      paymentHash: string;
      /** Sent by the lab's payment activity (reglab activity). */
      activity?: boolean;
      /** From the request to the final answer, where known. */
      ms?: number;
    }
  /** A payment of the lab's payment activity that failed: its code and the node's reason. */
  | {
      type: 'payment-failed';
      lab: string;
      from: string;
      to: string;
      amountSat: number;
      code: string;
      reason: string;
      ms: number;
      activity: true;
    }
  /** The figures of the lab's payment activity, each second while it runs and when it stops. */
  | ({ type: 'activity'; lab: string; running: boolean; inFlight: number } & ActivityFigures)
  /** A network fault set or taken off: the pairs of services it changed, each with its fault now. */
  | {
      type: 'network';
      lab: string;
      action: NetworkChange;
      /** What the command named: "alice ↔ bob", "carol" (all its links), or "every link". */
      target: string;
      links: LinkSummary[];
    }
  | {
      type: 'channel';
      lab: string;
      node: string;
      partner?: string;
      state: 'open' | 'closed';
      fundingTxid?: string;
      closingTxid?: string;
    };

export type LabEventListener = (event: LabEvent) => void;
