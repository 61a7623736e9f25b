// Many labs from one lab.yaml, for a workshop: `reglab up --copies N --name-prefix attendee-`
// brings them up at once (each in its own namespace on kubernetes, each with its own token),
// `reglab list` hands out their dashboards, tokens and service URLs (--csv for a teacher's sheet),
// `reglab down --all` (or --prefix) takes them down together.
import { parseDocument } from 'yaml';
import type { LabEvent } from '../lab/events.js';
import type { LabSpec } from '../spec/types.js';
import { ApiError, type ControlPlaneClient } from './client.js';
import { formatEvent } from './print.js';

/** The lab.yaml of each copy: the same file, its `name` replaced (comments and layout kept). */
export function copiesOf(
  yaml: string,
  spec: LabSpec,
  copies: number,
  prefix: string,
): { name: string; yaml: string }[] {
  if (!Number.isInteger(copies) || copies < 1)
    throw new ApiError(400, 'INVALID_ARGUMENT', `--copies must be a whole number of labs, 1 or more (not ${copies})`);
  const fixed = (['wallet-server', 'faucet', 'chain-adapter'] as const).filter(
    (service) => spec.services[service]?.port !== undefined,
  );
  if (fixed.length > 0)
    throw new ApiError(
      400,
      'INVALID_ARGUMENT',
      `copies of a lab cannot share the fixed host ports lab.yaml gives ${fixed.join(', ')}: leave services.*.port out, each copy gets free ports`,
    );
  if (spec.kubernetes?.namespace !== undefined)
    throw new ApiError(
      400,
      'INVALID_ARGUMENT',
      'copies of a lab cannot share the namespace lab.yaml names (kubernetes.namespace): leave it out, each copy gets reglab-<its name>',
    );
  return Array.from({ length: copies }, (_, index) => {
    const name = `${prefix}${index + 1}`;
    const document = parseDocument(yaml);
    document.set('name', name);
    return { name, yaml: document.toString() };
  });
}

export interface CopyOutcome {
  name: string;
  status: string;
  seconds: number;
  message?: string;
}

/**
 * Posts every copy, then follows their events together until each is ready or failed; `print`
 * hears each event, prefixed by its lab's name.
 */
export async function upCopies(
  client: ControlPlaneClient,
  copies: { name: string; yaml: string }[],
  file: string,
  print?: (line: string) => void,
): Promise<CopyOutcome[]> {
  const started = Date.now();
  for (const copy of copies) await client.request('POST', '/labs', { yaml: copy.yaml, file: `${file} (${copy.name})` });
  return Promise.all(
    copies.map(async ({ name }) => {
      let final: LabEvent | undefined;
      await client
        .follow(`/labs/${name}/events`, (event) => {
          const line = formatEvent(event as LabEvent);
          if (line && print) print(`[${name}] ${line.trim()}`);
          if (event.type === 'lab' && ['ready', 'failed', 'degraded'].includes(event.status as string))
            final = event as LabEvent;
          return final !== undefined;
        })
        .catch(() => undefined);
      const { status, error } = await client.request<{ status: string; error?: string }>('GET', `/labs/${name}`);
      return { name, status, seconds: (Date.now() - started) / 1000, ...(error ? { message: error } : {}) };
    }),
  );
}

/** The labs named by --all or --prefix, of those up. */
export function chosenLabs(labs: { name: string }[], options: { all?: boolean; prefix?: string }): string[] {
  return labs
    .map((lab) => lab.name)
    .filter((name) => options.all || (options.prefix !== undefined && name.startsWith(options.prefix)));
}

export interface LabListing {
  lab: string;
  status: string;
  runtime: string;
  dashboard: string;
  token: string;
  walletServer: string;
  faucet: string;
  chainAdapter: string;
}

type Inspected = { status: string; runtime: string; services: { name: string; info: Record<string, string> }[] };

/**
 * Each lab with what an attendee needs: its dashboard (with its token), its token, and its lab
 * services' URLs; `host` replaces 127.0.0.1 in them (the address the room reaches this machine at).
 */
export async function listLabs(
  client: ControlPlaneClient,
  names: string[],
  base: string,
  host: string | undefined,
): Promise<LabListing[]> {
  const here = (url: string | undefined) => (url && host ? url.replace('127.0.0.1', host) : (url ?? ''));
  return Promise.all(
    names.map(async (name) => {
      const [lab, access] = await Promise.all([
        client.request<Inspected>('GET', `/labs/${name}`),
        client.request<{ token?: string; dashboard: string }>('GET', `/labs/${name}/access`),
      ]);
      const url = (service: string) => here(lab.services.find((candidate) => candidate.name === service)?.info.url);
      return {
        lab: name,
        status: lab.status,
        runtime: lab.runtime,
        dashboard: `${here(base)}${access.dashboard}`,
        token: access.token ?? '',
        walletServer: url('wallet-server'),
        faucet: url('faucet'),
        chainAdapter: url('chain-adapter'),
      };
    }),
  );
}

const CSV_COLUMNS: [keyof LabListing, string][] = [
  ['lab', 'lab'],
  ['status', 'status'],
  ['dashboard', 'dashboard'],
  ['token', 'token'],
  ['walletServer', 'wallet_server'],
  ['faucet', 'faucet'],
  ['chainAdapter', 'chain_adapter'],
];

const csvField = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

export function listingCsv(rows: LabListing[]): string {
  return `${[
    CSV_COLUMNS.map(([, header]) => header),
    ...rows.map((row) => CSV_COLUMNS.map(([key]) => csvField(row[key]))),
  ]
    .map((fields) => fields.join(','))
    .join('\n')}\n`;
}

export function listingText(rows: LabListing[]): string {
  if (rows.length === 0) return 'no lab is up';
  return rows
    .map(
      (row) =>
        `${row.lab} (${row.status}, ${row.runtime})\n  dashboard ${row.dashboard}\n  token ${row.token || '(none)'}${row.walletServer ? `\n  wallet server ${row.walletServer}` : ''}${row.faucet ? `\n  faucet ${row.faucet}` : ''}${row.chainAdapter ? `\n  chain adapter ${row.chainAdapter}` : ''}`,
    )
    .join('\n');
}
