// The console: a line per step as it ends (groups with their steps, repeated steps with their
// counts and latencies), the reason under a failed one, and a summary per scenario.
import { formatDuration } from '../language/durations.js';
import type { ScenarioReport, StepReport } from './types.js';
import { flattenSteps, isStatistics } from './types.js';

const MARK = { passed: '✓', failed: '✗', skipped: '-' } as const;

export function formatStep(step: StepReport, depth = 0): string {
  const indent = '  '.repeat(depth + 1);
  const attempts = step.attempts > 1 ? `, ${step.attempts} attempts` : '';
  const lines = [
    `${indent}${MARK[step.status]} ${step.id}. ${step.label} (${formatDuration(step.ms)}${attempts})${statistics(step)}`,
  ];
  if (step.status === 'failed' && !step.steps) lines.push(`${indent}    ${step.error}`);
  if (step.status === 'failed' && step.steps && step.error && !step.steps.some((child) => child.status === 'failed'))
    lines.push(`${indent}    ${step.error}`);
  for (const child of step.steps ?? []) lines.push(formatStep(child, depth + 1));
  return lines.join('\n');
}

function statistics(step: StepReport): string {
  if (!isStatistics(step.output) || step.status === 'skipped') return '';
  const { count, succeeded, failed, latency_ms: latency } = step.output;
  return ` — ${count} runs: ${succeeded} ok, ${failed} failed; p50 ${latency.p50} ms, p95 ${latency.p95} ms, max ${latency.max} ms`;
}

export function formatSummary(report: ScenarioReport): string {
  const steps = flattenSteps(report.steps);
  const count = (status: StepReport['status']) => steps.filter((step) => step.status === status).length;
  const skipped = count('skipped');
  return `${count('passed')} passed, ${count('failed')} failed${skipped > 0 ? `, ${skipped} not run` : ''} (${formatDuration(report.ms)})${payments(report)}`;
}

/** The run's payments, when it made any: how many failed and why, and their latencies. */
function payments({ figures: { payments } }: ScenarioReport): string {
  if (payments.count === 0) return '';
  const reasons = Object.entries(payments.failures_by_reason)
    .map(([reason, count]) => `${count} ${reason}`)
    .join('; ');
  const { p50, p95, max } = payments.latency_ms;
  return `; ${payments.count} payments, ${payments.failed} failed${reasons ? ` (${reasons})` : ''}; p50 ${p50} ms, p95 ${p95} ms, max ${max} ms`;
}
