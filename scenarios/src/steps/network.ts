// Network faults between the lab's nodes (a lab with `network: { faults: true }`), through the
// control plane's /net routes: a delay, a rate limit, resets now and then, a partition, and the
// heal. Each is recorded as a fault, so that a later step that fails for it can say so.
import { durationMs } from '../language/durations.js';
import type { AnyStepKind, StepContext } from './kind.js';
import { object } from './schema-parts.js';

const end = {
  type: 'string',
  minLength: 1,
  description: 'a Lightning node, or a service nodes link to (chain, indexer, chain-adapter)',
} as const;
const duration = {
  type: ['string', 'number'],
  description: 'a duration: 200ms, 1.5s, or a number of seconds',
} as const;

const durationProblems = (args: Record<string, unknown>, keys: string[]) =>
  keys
    .filter((key) => args[key] !== undefined && durationMs(args[key]) === undefined)
    .map((key) => `${key} must be a duration such as 200ms or 1.5s (got ${JSON.stringify(args[key])})`);

async function change(context: StepContext, action: string, body: Record<string, unknown>) {
  const answer = await context.lab.post(`/net/${action}`, body);
  context.recordFault({ action: `net.${action}`, target: [body.a, body.b].filter(Boolean).join('-') || 'every link' });
  return answer;
}

const delay: AnyStepKind = {
  name: 'net.delay',
  summary: 'delay what crosses the links between a and b, each way, varying by up to `jitter`',
  args: object({ a: end, b: end, delay: duration, jitter: duration }, ['a', 'b', 'delay']),
  check: (args: Record<string, unknown>) => durationProblems(args, ['delay', 'jitter']),
  run: (args: { a: string; b: string; delay: string | number; jitter?: string | number }, context) =>
    change(context, 'delay', {
      a: args.a,
      b: args.b,
      delay_ms: durationMs(args.delay),
      jitter_ms: args.jitter === undefined ? 0 : durationMs(args.jitter),
    }),
};

const bandwidth: AnyStepKind = {
  name: 'net.bandwidth',
  summary: 'hold each direction of the links between a and b to a rate in KB/s',
  args: object({ a: end, b: end, kbytes_per_second: { type: 'integer', minimum: 1 } }, ['a', 'b', 'kbytes_per_second']),
  run: (args: { a: string; b: string; kbytes_per_second: number }, context) => change(context, 'bandwidth', args),
};

const loss: AnyStepKind = {
  name: 'net.loss',
  summary: 'reset connections over the links between a and b now and then: each one, with this chance every 10 s',
  args: object({ a: end, b: end, percent: { type: 'number', exclusiveMinimum: 0, maximum: 100 } }, [
    'a',
    'b',
    'percent',
  ]),
  run: (args: { a: string; b: string; percent: number }, context) => change(context, 'loss', args),
};

const partition: AnyStepKind = {
  name: 'net.partition',
  summary: 'cut the links between a and b, or (a alone) every link of a: the node cut off from the lab',
  args: object({ a: end, b: end }, ['a']),
  run: (args: { a: string; b?: string }, context) => change(context, 'partition', args),
};

const heal: AnyStepKind = {
  name: 'net.heal',
  summary: 'take every fault off the links between a and b, off those of a, or (no arguments) off all',
  args: object({ a: end, b: end }),
  check: (args: { a?: string; b?: string }) => (args.b !== undefined && args.a === undefined ? ['b needs a'] : []),
  run: (args: { a?: string; b?: string }, context) => change(context, 'heal', args),
};

const status: AnyStepKind = {
  name: 'net.status',
  summary: "the lab's links: for each pair, its fault (`description`) and its proxies with their toxics",
  args: object({}),
  run: (_args, context) => context.lab.get('/net'),
};

export const networkSteps = [delay, bandwidth, loss, partition, heal, status];
