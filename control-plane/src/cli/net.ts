// reglab net delay|bandwidth|loss|partition|heal|status: network faults on the links between a
// lab's nodes (a lab brought up with `network: { faults: true }`; docs/network-faults.md).
import type { Command } from 'commander';
import { ApiError } from './client.js';
import type { CliContext } from './context.js';

type Changed = { lab: string; links: { between: [string, string]; description: string }[] };
type Proxy = {
  name: string;
  listen: string;
  upstream: string;
  enabled: boolean;
  toxics: { name: string; type: string; stream: string; toxicity: number; attributes: Record<string, number> }[];
};
type Status = {
  lab: string;
  faults: boolean;
  links: { between: [string, string]; description: string; proxies: Proxy[] }[];
  cutOff: string[];
};

const invalidArgument = (message: string) => new ApiError(400, 'INVALID_ARGUMENT', message);

/** Milliseconds from "200ms", "1.5s" or "0". */
export function parseDurationMs(what: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(value);
  if (value === '0') return 0;
  if (!match) throw invalidArgument(`${what} must be a duration such as 200ms or 1.5s, not "${value}"`);
  return Math.round(Number(match[1]) * (match[2] === 's' ? 1_000 : 1));
}

/** A percentage from "10%", "10" or "0.5%". */
export function parsePercent(value: string): number {
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(value);
  if (!match || Number(match[1]) > 100)
    throw invalidArgument(`the loss must be a percentage from 0 to 100, such as 10% (not "${value}")`);
  return Number(match[1]);
}

/** KB/s from "64" or "64KB/s". */
export function parseRate(value: string): number {
  const match = /^(\d+)(?:\s*KB\/s)?$/i.exec(value);
  if (!match) throw invalidArgument(`the rate must be a whole number of KB/s, such as 64 or 64KB/s (not "${value}")`);
  return Number(match[1]);
}

const pair = (between: [string, string]) => between.join(' ↔ ');

function formatChanged(changed: Changed): string {
  if (changed.links.length === 0) return 'no link had a fault';
  return changed.links.map((link) => `${pair(link.between)}: ${link.description}`).join('\n');
}

function formatToxic(toxic: Proxy['toxics'][number]): string {
  const attributes = Object.entries(toxic.attributes)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  return `${toxic.type} ${toxic.stream}${toxic.toxicity < 1 ? ` ${toxic.toxicity * 100}%` : ''} (${attributes})`;
}

export function formatNetStatus(status: Status): string {
  if (!status.faults)
    return `lab ${status.lab} runs without network faults: its links go straight from node to node (lab.yaml \`network: { faults: true }\` puts a proxy on each)`;
  const lines = [`lab ${status.lab}: network faults on, ${status.links.length} pairs of services linked`];
  for (const link of status.links) {
    lines.push(`  ${pair(link.between).padEnd(24)} ${link.description}`);
    for (const proxy of link.proxies) {
      const toxics = proxy.toxics.map(formatToxic).join(', ');
      lines.push(
        `    ${proxy.name.padEnd(28)} ${proxy.listen} → ${proxy.upstream}${proxy.enabled ? '' : ' (disabled)'}${toxics ? `  ${toxics}` : ''}`,
      );
    }
  }
  if (status.cutOff.length > 0) lines.push(`  cut off: ${status.cutOff.join(', ')}`);
  return lines.join('\n');
}

export function netCommands(program: Command, cli: CliContext): void {
  const net = program
    .command('net')
    .description('network faults between the lab nodes: delay, bandwidth, loss, partitions (docs/network-faults.md)');

  const change = async (action: string, body: Record<string, unknown>) => {
    const client = await cli.client();
    const changed = await client.request<Changed>('POST', `/labs/${await cli.labName(client)}/net/${action}`, body);
    cli.out(formatChanged(changed), changed);
  };

  net
    .command('status')
    .description("the lab's links, the fault of each, and their proxies as Toxiproxy reports them")
    .action(async () => {
      const client = await cli.client();
      const status = await client.request<Status>('GET', `/labs/${await cli.labName(client)}/net`);
      cli.out(formatNetStatus(status), status);
    });

  net
    .command('delay')
    .description('delay what crosses the links between two services, each way (0 takes the delay off)')
    .argument('<a>', 'a node (or chain, indexer, chain-adapter)')
    .argument('<b>')
    .argument('<delay>', 'e.g. 200ms or 1.5s')
    .option('--jitter <jitter>', 'the delay varies by up to this much, up or down', '0')
    .action((a: string, b: string, delay: string, options: { jitter: string }) =>
      change('delay', {
        a,
        b,
        delay_ms: parseDurationMs('the delay', delay),
        jitter_ms: parseDurationMs('the jitter', options.jitter),
      }),
    );

  net
    .command('bandwidth')
    .description('hold each direction of the links between two services to a rate (0 takes the limit off)')
    .argument('<a>')
    .argument('<b>')
    .argument('<rate>', 'KB/s, e.g. 64 or 64KB/s')
    .action((a: string, b: string, rate: string) => change('bandwidth', { a, b, kbytes_per_second: parseRate(rate) }));

  net
    .command('loss')
    .description(
      'reset connections over the links between two services now and then: each one, with this chance every 10 s (0 stops it)',
    )
    .argument('<a>')
    .argument('<b>')
    .argument('<percent>', 'e.g. 10%')
    .action((a: string, b: string, percent: string) => change('loss', { a, b, percent: parsePercent(percent) }));

  net
    .command('partition')
    .description('cut the links between two services, or every link of one (a node cut off from the lab)')
    .argument('<a>')
    .argument('[b]')
    .action((a: string, b?: string) => change('partition', { a, ...(b === undefined ? {} : { b }) }));

  net
    .command('heal')
    .description('take every fault off the links between two services, off those of one, or off all')
    .argument('[a]')
    .argument('[b]')
    .action((a?: string, b?: string) =>
      change('heal', { ...(a === undefined ? {} : { a }), ...(b === undefined ? {} : { b }) }),
    );
}
