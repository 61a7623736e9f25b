// reglab activity start|stop|status|export: payment activity run by the control plane
// (docs/activity.md).
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import type { ActivityRequest, FlowSpec } from '../activity/request.js';
import type { ActivityStatus } from '../activity/runner.js';
import { ApiError } from './client.js';
import type { CliContext } from './context.js';

const badArgument = (message: string) => new ApiError(400, 'INVALID_ARGUMENT', message);

const wholeNumber = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value)) throw badArgument(`${name} must be a whole number, not "${value}"`);
  return Number(value);
};

const positiveNumber = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || parsed <= 0)
    throw badArgument(`${name} must be a number above 0, not "${value}"`);
  return parsed;
};

const FLOW_SHAPE = 'FROM TO AMOUNT_SAT INTERVAL_SECONDS [COUNT [START_SECONDS]]';

/** `--flow "alice carol 1000 2 10 5"`: the fields of a flow in order, separated by spaces or commas. */
export function parseFlow(text: string): FlowSpec {
  const fields = text.trim().split(/[\s,]+/);
  if (fields.length < 4 || fields.length > 6) throw badArgument(`--flow takes ${FLOW_SHAPE}, not "${text}"`);
  const [from, to, amount, interval, count, start] = fields;
  return {
    from,
    to,
    amount_sat: wholeNumber('a flow amount')(amount),
    interval_seconds: positiveNumber('a flow interval')(interval),
    ...(count === undefined ? {} : { count: wholeNumber('a flow count')(count) }),
    ...(start === undefined ? {} : { start_seconds: Number(wholeNumber('a flow start')(start)) }),
  };
}

/** A flows file: YAML or JSON, a list of flows or `{ flows: [...] }` (lab.yaml's `activity:` fits). */
function readFlows(file: string): FlowSpec[] {
  const parsed = parseYaml(readFileSync(file, 'utf8')) as unknown;
  const flows = Array.isArray(parsed) ? parsed : (parsed as { flows?: unknown } | null)?.flows;
  if (!Array.isArray(flows)) throw badArgument(`${file} holds no list of flows (a list, or flows: [...])`);
  return flows as FlowSpec[];
}

interface StartOptions {
  random?: boolean;
  seed?: number;
  expectedAmount?: number;
  capacityMultiplier?: number;
  flow: string[];
  flows?: string;
  maxInFlight?: number;
  duration?: number;
}

/** The API's body for the options given: none asks for lab.yaml's activity, or random with the defaults. */
export function activityRequest(options: StartOptions): ActivityRequest {
  const randomAsked =
    options.random ||
    options.seed !== undefined ||
    options.expectedAmount !== undefined ||
    options.capacityMultiplier !== undefined;
  const flows = [...(options.flows ? readFlows(options.flows) : []), ...options.flow.map(parseFlow)];
  return {
    ...(randomAsked
      ? {
          random: {
            ...(options.seed === undefined ? {} : { seed: options.seed }),
            ...(options.expectedAmount === undefined ? {} : { expected_amount_sat: options.expectedAmount }),
            ...(options.capacityMultiplier === undefined ? {} : { capacity_multiplier: options.capacityMultiplier }),
          },
        }
      : {}),
    ...(flows.length > 0 ? { flows } : {}),
    ...(options.maxInFlight === undefined ? {} : { max_in_flight: options.maxInFlight }),
    ...(options.duration === undefined ? {} : { duration_seconds: options.duration }),
  };
}

/** The status as `reglab activity status` prints it. */
export function formatActivity(status: ActivityStatus): string {
  const lines: string[] = [];
  const plan = status.plan;
  if (!status.startedAt) return `lab ${status.lab}: no activity has run (start one with \`reglab activity start\`)`;
  const parts = [
    ...(plan?.random
      ? [
          `random, seed ${plan.random.seed}, ${plan.random.ratePerSecond}/s asked, ~${plan.random.expectedAmountSat} sat`,
        ]
      : []),
    ...(plan && plan.flows.length > 0 ? [`${plan.flows.length} flow${plan.flows.length === 1 ? '' : 's'}`] : []),
  ];
  lines.push(
    status.running
      ? `activity of lab ${status.lab} running since ${status.startedAt} (${parts.join('; ')}), at most ${plan?.maxInFlight} in flight`
      : `activity of lab ${status.lab} stopped at ${status.stoppedAt} (${status.stopReason}); it ran ${parts.join('; ')}`,
  );
  lines.push(
    `  ${status.attempted} payments: ${status.succeeded} succeeded, ${status.failed} failed, ${status.pending} pending; ${status.paymentsPerSecond}/s over the last 10 s; ${status.inFlight} in flight`,
  );
  lines.push(`  ${status.amountSatSucceeded} sat paid, ${status.feeMsatPaid} msat in fees`);
  const reasons = Object.entries(status.failuresByReason).sort(([, a], [, b]) => b - a);
  if (reasons.length > 0) {
    lines.push('  failures by reason:');
    for (const [reason, count] of reasons) lines.push(`    ${String(count).padStart(6)}  ${reason}`);
  }
  return lines.join('\n');
}

export function activityCommands(program: Command, cli: CliContext): void {
  const activity = program
    .command('activity')
    .description("payment activity between the lab's Lightning nodes: random (sim-ln) and defined flows");
  const path = async () => {
    const client = await cli.client();
    return { client, path: `/labs/${await cli.labName(client)}/activity` };
  };
  /** Asks the activity route with `method` and prints the status it answers. */
  const answerStatus = async (method: 'GET' | 'POST' | 'DELETE', body?: ActivityRequest) => {
    const { client, path: route } = await path();
    const status = await client.request<ActivityStatus>(method, route, body);
    cli.out(formatActivity(status), status);
  };

  activity
    .command('start')
    .description(
      "start sending keysends: random ones weighted by channel capacity, defined flows, or both (none named: lab.yaml's activity, else random)",
    )
    .option('--random', 'random payments (implied by --seed, --expected-amount, --capacity-multiplier)')
    .option('--seed <n>', 'replay: the same seed on the same lab sends the same payments', wholeNumber('--seed'))
    .option(
      '--expected-amount <sat>',
      'the mean amount of a random payment (default 3800)',
      wholeNumber('--expected-amount'),
    )
    .option(
      '--capacity-multiplier <x>',
      'how many times its channel capacity each node sends in an hour (default 2)',
      positiveNumber('--capacity-multiplier'),
    )
    .option(
      '--flow <flow>',
      `a defined flow: ${FLOW_SHAPE} (repeatable)`,
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option('--flows <file>', 'defined flows from a YAML or JSON file')
    .option('--max-in-flight <n>', 'payments under way at once (default 8)', wholeNumber('--max-in-flight'))
    .option('--duration <seconds>', 'stop by itself after this long', wholeNumber('--duration'))
    .action(async (options: StartOptions) => answerStatus('POST', activityRequest(options)));

  activity
    .command('stop')
    .description('stop sending (payments under way end and are recorded)')
    .action(() => answerStatus('DELETE'));

  activity
    .command('status')
    .description('running or not, payments by outcome, payments a second, failures by reason')
    .action(() => answerStatus('GET'));

  activity
    .command('export')
    .description('each payment of the last activity (time, nodes, amount, fee, hops, outcome, reason) to a file')
    .option('--csv <file>', 'as CSV ("-": to stdout)')
    .option('--json <file>', 'as JSON ("-": to stdout)')
    .action(async (options: { csv?: string; json?: string }) => {
      if ((options.csv === undefined) === (options.json === undefined))
        throw badArgument('name one file: --csv FILE or --json FILE');
      const format = options.csv === undefined ? 'json' : 'csv';
      const file = (options.csv ?? options.json)!;
      const { client, path: route } = await path();
      const answer = await client.request<string | { payments: unknown[] }>(
        'GET',
        `${route}/payments?format=${format}`,
      );
      const text = typeof answer === 'string' ? answer : `${JSON.stringify(answer, null, 2)}\n`;
      const count = typeof answer === 'string' ? Math.max(0, answer.split('\n').length - 2) : answer.payments.length;
      if (file === '-') process.stdout.write(text);
      else {
        writeFileSync(file, text);
        cli.out(`${count} payments written to ${file}`, { file, format, payments: count });
      }
    });
}
