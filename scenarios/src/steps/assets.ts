// RGB assets on the lab's rgb and rln nodes, through the control plane's asset routes: issue, send
// (a job: an invoice of the receiver, paid, a block, settled on both sides), a node's balance.
import { randomInt } from 'node:crypto';
import type { AnyStepKind } from './kind.js';
import { object, text } from './schema-parts.js';

const assetNode = { type: 'string', minLength: 1, description: 'an rgb or rln node of the lab' } as const;
const asset = { ...text, description: "the lab's ticker of the asset, or its asset id (rgb:...)" } as const;
const amount = {
  type: 'integer',
  minimum: 1,
  maximum: Number.MAX_SAFE_INTEGER,
  description: "in the asset's smallest unit",
} as const;

interface Holding {
  ticker?: string;
  assetId: string;
  settled: number;
  future: number;
  spendable: number;
}

const TICKER_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/**
 * A ticker no run has taken yet, as likely as not: S and 7 letters or digits. A lab's tickers are unique, and a
 * scenario runs again on the same lab.
 */
const freshTicker = () =>
  `S${Array.from({ length: 7 }, () => TICKER_LETTERS[randomInt(TICKER_LETTERS.length)]).join('')}`;

const issue: AnyStepKind = {
  name: 'asset.issue',
  summary:
    'issue an asset on a node with amount as its supply (schema nia, cfa or uda); the lab names it by its ticker from then on (left out: a new one, in $.asset.ticker)',
  args: object(
    {
      node: assetNode,
      ticker: { type: 'string', pattern: '^[A-Z][A-Z0-9]{0,7}$' },
      amount,
      name: text,
      precision: { type: 'integer', minimum: 0, maximum: 18 },
      schema: { enum: ['nia', 'cfa', 'uda'] },
    },
    ['node', 'amount'],
  ),
  run: (args: { ticker?: string }, context) =>
    context.lab.post('/assets', { ...args, ticker: args.ticker ?? freshTicker() }),
};

const send: AnyStepKind = {
  name: 'asset.send',
  summary:
    "send an amount of an asset from one node to another: the receiver's invoice (blinded, or witness: true), paid, a block, settled on both sides; answers txid and both settled balances",
  args: object({ from: assetNode, to: assetNode, asset, amount, witness: { type: 'boolean' } }, [
    'from',
    'to',
    'asset',
    'amount',
  ]),
  run: (args, context) => context.lab.runJob('/assets/send', args),
};

const balance: AnyStepKind = {
  name: 'asset.balance',
  summary: "a node's balance of an asset: settled, future, spendable (0 for an asset it does not hold)",
  args: object({ node: assetNode, asset }, ['node', 'asset']),
  async run(args: { node: string; asset: string }, context) {
    const { nodes } = await context.lab.get<{ nodes: { assets?: Holding[] }[] }>(
      `/assets/balances?node=${encodeURIComponent(args.node)}`,
    );
    const held = nodes[0]?.assets?.find((holding) => holding.ticker === args.asset || holding.assetId === args.asset);
    return {
      node: args.node,
      asset: args.asset,
      settled: held?.settled ?? 0,
      future: held?.future ?? 0,
      spendable: held?.spendable ?? 0,
    };
  },
};

export const assetSteps = [issue, send, balance];
