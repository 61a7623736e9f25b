// The figures of a scenario's run, which its JSON report and its JUnit properties carry: how long
// it took, its steps by outcome, and its payments (every attempt of a payment step, repetitions
// included): how many, how they ended, the failures by reason and their latencies.
import { summarise, type RunOutcome, type RunStatistics } from '../run/statistics.js';

export interface PaymentFigures {
  count: number;
  succeeded: number;
  failed: number;
  /** Failed payments by reason (the refusal's code, or the control plane's reason for a failed job). */
  failures_by_reason: Record<string, number>;
  latency_ms: RunStatistics['latency_ms'];
}

export interface ScenarioFigures {
  duration_ms: number;
  steps: { passed: number; failed: number; skipped: number };
  payments: PaymentFigures;
}

export function scenarioFigures(
  steps: { status: 'passed' | 'failed' | 'skipped' }[],
  payments: RunOutcome[],
  durationMs: number,
): ScenarioFigures {
  const count = (status: 'passed' | 'failed' | 'skipped') => steps.filter((step) => step.status === status).length;
  const { errors, ...statistics } = summarise(payments);
  return {
    duration_ms: durationMs,
    steps: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    payments: {
      ...statistics,
      failures_by_reason: Object.fromEntries(errors.map(({ message, count }) => [message, count])),
    },
  };
}

/** The figures as JUnit <property> name/value pairs: dotted paths to each number. */
export function figureProperties(figures: ScenarioFigures): [string, number][] {
  const { payments } = figures;
  return [
    ['duration_ms', figures.duration_ms],
    ...Object.entries(figures.steps).map(([status, count]): [string, number] => [`steps.${status}`, count]),
    ['payments.count', payments.count],
    ['payments.succeeded', payments.succeeded],
    ['payments.failed', payments.failed],
    ...Object.entries(payments.latency_ms).map(([key, ms]): [string, number] => [`payments.latency_ms.${key}`, ms]),
    ...Object.entries(payments.failures_by_reason).map(([reason, count]): [string, number] => [
      `payments.failures_by_reason.${reason}`,
      count,
    ]),
  ];
}
