// The chain of the lab, through the control plane's mining queue and lab wallet.
import type { AnyStepKind } from './kind.js';
import { exactlyOne, node, object, text } from './schema-parts.js';

const mine: AnyStepKind = {
  name: 'mine',
  summary: 'mine blocks (to the lab wallet, or to address:)',
  args: object({ blocks: { type: 'integer', minimum: 1, maximum: 1000 }, address: text }, ['blocks']),
  run: (args, context) => context.lab.runJob('/mine', args),
};

const fund: AnyStepKind = {
  name: 'fund',
  summary: 'send coins from the lab wallet to a node or an address, confirmed',
  args: object({ node, address: text, amount_sat: { type: 'integer', minimum: 546 } }, ['amount_sat']),
  check: (args: Record<string, unknown>) => exactlyOne(args, ['node', 'address']),
  run: (args, context) => context.lab.runJob('/fund', args),
};

const reorg: AnyStepKind = {
  name: 'reorg',
  summary:
    'replace the last N blocks with N+1 new ones (their transactions go back to the mempool); answers forkHeight, replaced, newHeight',
  args: object({ blocks: { type: 'integer', minimum: 1, maximum: 100 } }, ['blocks']),
  run: (args, context) => context.lab.runJob('/reorg', args),
};

const autoMine: AnyStepKind = {
  name: 'auto_mine',
  summary: 'mine a block every N seconds from now on, as a live chain would (0 stops; a finally: step should stop it)',
  args: object({ seconds: { type: 'integer', minimum: 0, maximum: 86_400 } }, ['seconds']),
  run: (args, context) => context.lab.put('/auto-mining', args),
};

const lab: AnyStepKind = {
  name: 'lab',
  summary: 'the lab as `reglab status` shows it: status, services, nodes with balances and channels, chain.height',
  args: object({}),
  run: (_args, context) => context.lab.get(),
};

export const chainSteps = [mine, fund, reorg, autoMine, lab];
