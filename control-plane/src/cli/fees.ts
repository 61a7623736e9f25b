// reglab fees status|spike|end: the lab's fee market and its fee spikes (docs/lab-yaml.md, The lab's
// fee market).
import type { Command } from 'commander';
import type { FeesView } from '../lab/fee-spike.js';
import { ApiError } from './client.js';
import type { CliContext } from './context.js';

const wholeNumber = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new ApiError(400, 'INVALID_ARGUMENT', `${name} must be a whole number from 1, not "${value}"`);
  return Number(value);
};

export function formatFees(view: FeesView): string {
  const policy =
    view.policy === 'fixed' ? `fixed at ${view.satPerVbyte} sat/vB` : "the chain node's estimates (policy node)";
  const spike = view.spike;
  const spikeLine = !spike
    ? 'no fee spike'
    : spike.active
      ? `fee spike: every rate at least ${spike.satPerVbyte} sat/vB until height ${spike.untilHeight} (${spike.blocksLeft} block${spike.blocksLeft === 1 ? '' : 's'} left)`
      : `the last fee spike (${spike.satPerVbyte} sat/vB) ended at height ${spike.untilHeight}`;
  return `lab ${view.lab} at height ${view.height}: fees ${policy}; ${spikeLine}`;
}

export function feeCommands(program: Command, cli: CliContext): void {
  const fees = program.command('fees').description("the lab's fee market, and fee spikes as a fault");
  const answer = async (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => {
    const client = await cli.client();
    const view = await client.request<FeesView>(method, `/labs/${await cli.labName(client)}/fees${path}`, body);
    cli.out(formatFees(view), view);
  };

  fees
    .command('status')
    .description('the fee policy, the chain height, and the fee spike with the blocks it has left')
    .action(() => answer('GET', ''));

  fees
    .command('spike')
    .description(
      'raise every fee rate of the lab (lnd, LDK, the chain adapter, Electrum) to at least SAT_PER_VBYTE for the next N blocks',
    )
    .argument('<sat_per_vbyte>', 'the rate, 1 to 1000', wholeNumber('sat_per_vbyte'))
    .requiredOption('--blocks <n>', 'how many blocks it lasts', wholeNumber('--blocks'))
    .action((rate: number, options: { blocks: number }) =>
      answer('POST', '/spike', { sat_per_vbyte: rate, blocks: options.blocks }),
    );

  fees
    .command('end')
    .description('end the fee spike now')
    .action(() => answer('DELETE', '/spike'));
}
