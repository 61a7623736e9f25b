// The lab's fee market as a fault: a fee spike for N blocks, its status, its end.
import type { AnyStepKind } from './kind.js';
import { object } from './schema-parts.js';

const spike: AnyStepKind = {
  name: 'fees.spike',
  summary:
    'raise every fee rate of the lab (lnd, the chain adapter, Electrum, LDK through them) to at least sat_per_vbyte for the next `blocks` blocks; answers the fees status',
  args: object(
    { sat_per_vbyte: { type: 'integer', minimum: 1, maximum: 1000 }, blocks: { type: 'integer', minimum: 1 } },
    ['sat_per_vbyte', 'blocks'],
  ),
  run: (args, context) => context.lab.post('/fees/spike', args),
};

const status: AnyStepKind = {
  name: 'fees.status',
  summary: 'the fee policy, the height, and the spike: { satPerVbyte, untilHeight, active, blocksLeft }',
  args: object({}),
  run: (_args, context) => context.lab.get('/fees'),
};

const end: AnyStepKind = {
  name: 'fees.end',
  summary: 'end the fee spike now (a finally: step)',
  args: object({}),
  run: (_args, context) => context.lab.delete('/fees/spike'),
};

export const feeSteps = [spike, status, end];
