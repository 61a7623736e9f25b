// Lightning actions on the lab's nodes (any Lightning kind), through the control plane: channels,
// invoices (hold invoices too), payments and keysends as jobs of the lab's queues.
import type { AnyStepKind } from './kind.js';
import { exactlyOne, node, object, sat, text } from './schema-parts.js';

const hash = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const wait = {
  type: 'boolean',
  description: 'false: answer {job} at once (follow it with a job step); default true',
} as const;
const nodePath = (name: string) => `/nodes/${encodeURIComponent(name)}`;
/** A payment step pays within the step unless told to answer at once (wait: false). */
const waitsForPayment = (args: { wait?: boolean }) => args.wait !== false;

const channel: AnyStepKind = {
  name: 'channel',
  summary: 'open a channel from one node to another, confirmed and active',
  args: object({ from: node, to: node, capacity_sat: sat, push_sat: { type: 'integer', minimum: 0 } }, [
    'from',
    'to',
    'capacity_sat',
  ]),
  run: (args, context) => context.lab.runJob('/channels', args),
};

const closeChannel: AnyStepKind = {
  name: 'close_channel',
  summary:
    'close a channel of a node (with partner: or channel_id:), cooperatively or with force: true; a force close answers maturityBlocks',
  args: object({ node, partner: node, channel_id: text, force: { type: 'boolean' } }, ['node']),
  check: (args: Record<string, unknown>) => exactlyOne(args, ['partner', 'channel_id']),
  run: (args, context) => context.lab.runJob('/channels/close', args),
};

const pay: AnyStepKind = {
  name: 'pay',
  summary:
    'a payment from a node: an invoice on `to` for amount_sat, or any BOLT11 `invoice`; answers paymentHash, amountSat, feeSat, hops, preimage',
  args: object({ from: node, to: node, amount_sat: sat, invoice: text, wait }, ['from']),
  check: (args: { to?: string; amount_sat?: number; invoice?: string }) =>
    (args.invoice === undefined) === (args.to !== undefined && args.amount_sat !== undefined)
      ? []
      : ['give either invoice, or to and amount_sat'],
  payment: waitsForPayment,
  run: ({ wait: waitForIt = true, ...body }: { wait?: boolean }, context) =>
    waitForIt ? context.lab.runJob('/payments', body) : context.lab.startJob('/payments', body),
};

const keysend: AnyStepKind = {
  name: 'keysend',
  summary: 'a spontaneous payment (no invoice) from one node to another',
  args: object({ from: node, to: node, amount_sat: sat, wait }, ['from', 'to', 'amount_sat']),
  payment: waitsForPayment,
  run: ({ wait: waitForIt = true, ...body }: { wait?: boolean }, context) =>
    waitForIt
      ? context.lab.runJob('/payments', { ...body, keysend: true })
      : context.lab.startJob('/payments', { ...body, keysend: true }),
};

const invoice: AnyStepKind = {
  name: 'invoice',
  summary:
    'an invoice of a node (payment_request, payment_hash); hold: true keeps it open until settle_invoice or cancel_invoice (the preimage is answered)',
  args: object(
    {
      node,
      amount_msat: { type: 'integer', minimum: 1 },
      memo: { type: 'string' },
      expiry_sec: { type: 'integer', minimum: 1 },
      hold: { type: 'boolean' },
    },
    ['node', 'amount_msat'],
  ),
  run: ({ node: name, ...body }: { node: string }, context) => context.lab.post(`${nodePath(name)}/invoices`, body),
};

const invoiceState: AnyStepKind = {
  name: 'invoice_state',
  summary:
    "an invoice of a node by its hash: state open, accepted (a hold invoice's HTLCs arrived), settled or canceled",
  args: object({ node, hash }, ['node', 'hash']),
  run: (args: { node: string; hash: string }, context) =>
    context.lab.get(`${nodePath(args.node)}/invoices/${args.hash}`),
};

const settleInvoice: AnyStepKind = {
  name: 'settle_invoice',
  summary: 'settle an accepted hold invoice with its preimage',
  args: object({ node, hash, preimage: hash }, ['node', 'hash', 'preimage']),
  run: (args: { node: string; hash: string; preimage: string }, context) =>
    context.lab.post(`${nodePath(args.node)}/invoices/${args.hash}/settle`, { preimage: args.preimage }),
};

const cancelInvoice: AnyStepKind = {
  name: 'cancel_invoice',
  summary: "cancel a hold invoice (the payer's payment fails)",
  args: object({ node, hash }, ['node', 'hash']),
  run: (args: { node: string; hash: string }, context) =>
    context.lab.post(`${nodePath(args.node)}/invoices/${args.hash}/cancel`),
};

const nodeView: AnyStepKind = {
  name: 'node',
  summary:
    'a Lightning node: pubkey, chainBalanceSat, channelBalanceSat, channels (partner, capacitySat, localSat, remoteSat, active, ...)',
  args: object({ name: node }, ['name']),
  run: (args: { name: string }, context) => context.lab.get(nodePath(args.name)),
};

const nodeAddress: AnyStepKind = {
  name: 'node_address',
  summary: "a new on-chain address of a node's wallet",
  args: object({ node }, ['node']),
  run: (args: { node: string }, context) => context.lab.post(`${nodePath(args.node)}/address`),
};

const job: AnyStepKind = {
  name: 'job',
  summary: 'wait until a job started with wait: false has finished; answers its result (a failed job fails the step)',
  args: object({ id: text }, ['id']),
  run: (args: { id: string }, context) => context.lab.waitForJob(args.id),
};

export const lightningSteps = [
  channel,
  closeChannel,
  pay,
  keysend,
  invoice,
  invoiceState,
  settleInvoice,
  cancelInvoice,
  nodeView,
  nodeAddress,
  job,
];
