// The control plane's operations as MCP tools: each a name, what it does, the schema of its
// arguments, and the request it makes of the control plane about the lab — the requests the CLI
// makes, through the same client; a job (mining, funding, channels, payments, assets) is followed
// to its end. The control plane checks each request as it does the CLI's and its refusal is the
// tool's error. A route of the control plane becomes a tool in one line: `read` for a GET,
// `action` for a POST answered at once, `job` for one that queues a job.
import { z, type ZodRawShape } from 'zod';
import type { ControlPlaneClient } from '../cli/client.js';
import type { LabCalls } from '../../../scenarios/src/steps/lab-calls.js';

/** What a tool works with: the control plane, and its calls about the lab the tool acts on. */
export interface ToolContext {
  api: ControlPlaneClient;
  lab: LabCalls;
  /** The folder relative paths are read from (scenario files). */
  cwd: string;
}

type Args = Record<string, unknown>;

export interface LabTool {
  name: string;
  description: string;
  /** The arguments (every tool also takes `lab`, added by the server). */
  input: ZodRawShape;
  run(context: ToolContext, args: Args): Promise<unknown>;
}

/** A path under /labs/{lab}, fixed or made from the arguments. */
type LabPath = string | ((args: Args) => string);
/** The request's body: the arguments (the default), or what `body` makes of them. */
type Body = (args: Args) => unknown;

const pathOf = (path: LabPath, args: Args) => (typeof path === 'string' ? path : path(args));
const segment = (value: unknown) => encodeURIComponent(String(value));

/** GET /labs/{lab}PATH. */
export const read = (name: string, description: string, path: LabPath, input: ZodRawShape = {}): LabTool => ({
  name,
  description,
  input,
  run: ({ lab }, args) => lab.get(pathOf(path, args)),
});

/** POST /labs/{lab}PATH, answered at once. */
export const action = (
  name: string,
  description: string,
  path: LabPath,
  input: ZodRawShape,
  body: Body = (args) => args,
): LabTool => ({ name, description, input, run: ({ lab }, args) => lab.post(pathOf(path, args), body(args)) });

/** POST /labs/{lab}PATH that queues a job, followed until it has finished: its result, or its failure. */
export const job = (
  name: string,
  description: string,
  path: string,
  input: ZodRawShape,
  body: Body = (args) => args,
): LabTool => ({ name, description, input, run: ({ lab }, args) => lab.runJob(path, body(args)) });

const node = z.string().min(1).describe('a node of the lab, by name (see status)');
const service = z.string().min(1).describe('a service of the lab, by name (see status): a node, wallet-server, ...');
const sat = z.number().int().describe('satoshis');

const SERVICE_ACTIONS = {
  stop: 'Stop a service cleanly; the supervisor leaves it stopped until start',
  start: 'Start a stopped or failed service and wait until it is ready',
  restart: 'Stop and start a service, and wait until it is ready',
  kill: 'SIGKILL a service: a crash, which the supervisor reports and handles by its restart policy',
} as const;

export const LAB_TOOLS: LabTool[] = [
  read(
    'status',
    'The lab: its status, services (status, restarts, ports, URLs), nodes (pubkey, balances, channels), chain height, the lab wallet (what `reglab status` shows)',
    '',
  ),
  read(
    'node',
    'One node, live: pubkey, balances, channels with their sides, pending closes',
    (args) => `/nodes/${segment(args.node)}`,
    {
      node,
    },
  ),
  job('mine', 'Mine blocks, to the lab wallet or to an address; answers the new height', '/mine', {
    blocks: z.number().int().describe('how many blocks'),
    address: z.string().optional().describe('a regtest address for the block rewards'),
  }),
  job('reorg', 'Replace the last N blocks by N+1 new ones; their transactions go back to the mempool', '/reorg', {
    blocks: z.number().int().describe('how many blocks to replace'),
  }),
  {
    name: 'auto_mine',
    description: 'Mine a block every N seconds (0 stops)',
    input: { seconds: z.number().int().describe('seconds between blocks; 0 stops') },
    run: ({ lab }, args) => lab.put('/auto-mining', args),
  },
  job(
    'fund',
    'Send coins from the lab wallet to a node or a regtest address, and mine a block; answers the txid',
    '/fund',
    {
      node: node.optional().describe('the node to fund (or give address)'),
      address: z.string().optional().describe('a regtest address to fund (or give node)'),
      amount_sat: sat,
    },
  ),
  job(
    'pay',
    "A payment from a node over the lab channels: an invoice of `to` for amount_sat, any BOLT11 `invoice`, or a keysend to `to`; answers paymentHash, amountSat, feeSat, hops, preimage, or the node's reason for a failure",
    '/payments',
    {
      from: node.describe('the paying node'),
      to: node.optional().describe('the node paid (with amount_sat)'),
      amount_sat: sat.optional(),
      invoice: z
        .string()
        .optional()
        .describe("a BOLT11 invoice to pay instead (a wallet server's, any regtest node's)"),
      keysend: z.boolean().optional().describe('pay `to` by keysend, without an invoice'),
    },
  ),
  action(
    'invoice',
    'A BOLT11 invoice of a node (payment_request, payment_hash), for a payment to it',
    (args) => `/nodes/${segment(args.node)}/invoices`,
    {
      node,
      amount_msat: z.number().int().describe('millisatoshis'),
      memo: z.string().optional(),
      expiry_sec: z.number().int().optional(),
    },
    ({ node: _node, ...body }) => body,
  ),
  job(
    'channel_open',
    'Open a channel, mine 6 blocks, and wait until it is active and routable; answers the funding outpoint',
    '/channels',
    {
      from: node.describe('the node that funds the channel'),
      to: node.describe('its partner'),
      capacity_sat: sat,
      push_sat: sat.optional().describe("satoshis given to the partner's side"),
      private: z.boolean().optional(),
    },
  ),
  job(
    'channel_close',
    "Close a node's channel (with a partner, or by channel_id) and mine a block; a force close answers maturityBlocks",
    '/channels/close',
    {
      node: node.describe('the node whose channel closes'),
      partner: node.optional().describe('the channel partner (or give channel_id)'),
      channel_id: z.string().optional(),
      force: z.boolean().optional().describe('force close: the funds wait for their timelock'),
    },
  ),
  ...Object.entries(SERVICE_ACTIONS).map(([name, description]) =>
    action(
      name,
      description,
      (args) => `/services/${segment(args.service)}/${name}`,
      { service },
      () => ({}),
    ),
  ),
  action('connect_peers', 'Connect two Lightning nodes as peers', '/peers/connect', { a: node, b: node }),
  action('disconnect_peers', 'Disconnect two Lightning nodes (their channels go inactive)', '/peers/disconnect', {
    a: node,
    b: node,
  }),
  read('net_status', 'The network faults: each linked pair with its fault, each proxy, the nodes cut off', '/net'),
  action(
    'net_delay',
    'Delay what crosses the links between two services, each way (0 takes the delay off)',
    '/net/delay',
    { a: service, b: service, delay_ms: z.number().int(), jitter_ms: z.number().int().optional() },
  ),
  action(
    'net_bandwidth',
    'Limit each direction of the links between two services to a rate (0 takes the limit off)',
    '/net/bandwidth',
    { a: service, b: service, kbytes_per_second: z.number().int() },
  ),
  action(
    'net_loss',
    'Reset connections over the links between two services with this chance (0 stops it)',
    '/net/loss',
    { a: service, b: service, percent: z.number() },
  ),
  action('net_partition', "Cut the links between a and b, or a's links with every other node", '/net/partition', {
    a: service,
    b: service.optional(),
  }),
  action('net_heal', "Take every fault off the links between a and b, off a's, or off all", '/net/heal', {
    a: service.optional(),
    b: service.optional(),
  }),
  read(
    'logs',
    "The last lines of a service's log (secret: needs the token on a workshop's control plane)",
    (args) => `/logs/${segment(args.service)}?lines=${args.lines ?? 100}`,
    { service, lines: z.number().int().optional().describe('how many lines (default 100)') },
  ),
  read(
    'connect_info',
    "What a wallet app takes to reach a service: an lnd node's lndconnect URIs, an LDK node's API, the wallet server's API and a user's LNURL (secret)",
    (args) =>
      `/services/${segment(args.service)}/connect-info${args.user === undefined ? '' : `?user=${segment(args.user)}`}`,
    { service, user: z.string().optional().describe('a wallet server username, for its LNURL-pay') },
  ),
  read('assets', "The lab's RGB assets, with who holds how much", '/assets'),
  read(
    'asset_balances',
    'What each rgb and rln node holds of each RGB asset (or one node)',
    (args) => `/assets/balances${args.node === undefined ? '' : `?node=${segment(args.node)}`}`,
    { node: node.optional() },
  ),
  action(
    'asset_issue',
    'Issue an RGB asset on an rgb or rln node; the lab names it by its ticker from then on',
    '/assets',
    {
      node,
      ticker: z.string().describe('1-8 upper-case letters and digits, starting with a letter'),
      amount: z.number().int().describe("the supply, in the asset's smallest unit"),
      name: z.string().optional(),
      precision: z.number().int().optional(),
      schema: z.enum(['nia', 'cfa', 'uda']).optional(),
    },
  ),
  job('asset_send', 'Send an RGB asset from one node to another, mine a block, settle both sides', '/assets/send', {
    from: node,
    to: node,
    asset: z.string().describe("the lab's ticker of the asset, or its asset id"),
    amount: z.number().int().describe("in the asset's smallest unit"),
    witness: z.boolean().optional().describe('pay to a new output of `to` instead of a blinded UTXO'),
  }),
  action(
    'activity_start',
    "Start payment activity: random keysends between the Lightning nodes weighted by channel capacity (a seed replays them), defined flows, or both; no arguments runs lab.yaml's activity, else random with sim-ln's defaults",
    '/activity',
    {
      random: z
        .object({
          seed: z.number().int().optional().describe('the same seed on the same lab replays the same payments'),
          expected_amount_sat: z.number().int().optional().describe('the mean amount (default 3800)'),
          capacity_multiplier: z
            .number()
            .optional()
            .describe('how many times its channel capacity each node sends in an hour (default 2)'),
        })
        .optional()
        .describe('random payments; {} for the defaults'),
      flows: z
        .array(
          z.object({
            from: node,
            to: node,
            amount_sat: sat,
            interval_seconds: z.number().describe('seconds between payments'),
            count: z.number().int().optional().describe('how many (for ever when left out)'),
            start_seconds: z.number().optional().describe('the wait before the first'),
          }),
        )
        .optional()
        .describe('defined flows'),
      max_in_flight: z.number().int().optional().describe('payments under way at once (default 8)'),
      duration_seconds: z.number().int().optional().describe('stop by itself after this long'),
    },
  ),
  read('fees_status', "The lab's fee policy, the chain height, and the fee spike with the blocks it has left", '/fees'),
  action(
    'fees_spike',
    'A fee spike: every fee rate of the lab (lnd, LDK, the chain adapter, Electrum) at least sat_per_vbyte for the next `blocks` blocks',
    '/fees/spike',
    {
      sat_per_vbyte: z.number().int().describe('the rate, 1 to 1000 sat/vB'),
      blocks: z.number().int().describe('how many blocks it lasts'),
    },
  ),
  read(
    'activity_status',
    'The payment activity: running or not, payments by outcome, payments a second, in flight, failures by reason, its plan',
    '/activity',
  ),
  {
    name: 'activity_stop',
    description: 'Stop the payment activity (payments under way end and are recorded); answers its status',
    input: {},
    run: ({ lab }) => lab.delete('/activity'),
  },
  read(
    'activity_payments',
    "Each payment of the last activity: time, from, to, amount, fee, hops, latency, outcome and, for a failure, its code and the node's reason",
    '/activity/payments',
  ),
  action('snapshot_save', 'Save the lab as a snapshot (its services stop while their data is copied)', '/snapshots', {
    name: z.string().describe('lowercase letters, digits, ., _ and -'),
  }),
  action(
    'reset',
    'Put the lab back to the snapshot it came from or last saved, and wait until it is ready',
    '/reset',
    {},
  ),
];

/** Tools about the control plane rather than one lab. */
export const CONTROL_PLANE_TOOLS: LabTool[] = [
  {
    name: 'labs',
    description: 'The labs of this control plane, with their status',
    input: {},
    run: ({ api }) => api.request('GET', '/labs'),
  },
];
