// reglab connect-info SERVICE [--user NAME]: what a wallet app or tool takes to reach a node or the
// wallet server (lndconnect URIs, an API's URL, an LNURL), from the control plane's
// /labs/{lab}/services/{service}/connect-info.
import type { Command } from 'commander';
import type { CliContext } from './context.js';

interface ConnectInfoAnswer {
  service: string;
  kind: string;
  uris: Record<string, string>;
  notes: string[];
}

export function formatConnectInfo(info: ConnectInfoAnswer): string {
  const width = Math.max(...Object.keys(info.uris).map((name) => name.length));
  return [
    `${info.service} (${info.kind})`,
    ...Object.entries(info.uris).map(([name, uri]) => `  ${name.padEnd(width)}  ${uri}`),
    ...info.notes.map((note) => `  - ${note}`),
  ].join('\n');
}

export function connectInfoCommand(program: Command, cli: CliContext): void {
  program
    .command('connect-info')
    .description(
      "what a wallet app or tool takes to reach a service: an lnd node's lndconnect URIs (Zeus, ThunderHub), an LDK node's API, the wallet server's API and, with --user, a user's LNURL (secret: it carries credentials)",
    )
    .argument('<service>', 'an lnd or ldk node, or wallet-server')
    .option('--user <username>', "a wallet server username (a lightning address's): its LNURL-pay")
    .action(async (service: string, options: { user?: string }) => {
      const client = await cli.client();
      const query = options.user === undefined ? '' : `?user=${encodeURIComponent(options.user)}`;
      const info = await client.request<ConnectInfoAnswer>(
        'GET',
        `/labs/${await cli.labName(client)}/services/${encodeURIComponent(service)}/connect-info${query}`,
      );
      cli.out(formatConnectInfo(info), info);
    });
}
