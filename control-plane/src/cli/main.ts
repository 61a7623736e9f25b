import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { DomainError } from '../../../lib/errors.js';
import { STATUS_OF_KIND } from '../../../lib/http/errors.js';
import { projectRoot } from '../../../lib/project-root.js';
import type { LabEvent } from '../lab/events.js';
import { daemonInfoFile, reglabHome, type DaemonInfo } from '../home.js';
import { formatProblem } from '../../../lib/yaml-problems.js';
import { LabSpecError } from '../spec/spec-error.js';
import {
  ApiError,
  controlPlaneOf,
  ensureControlPlane,
  findControlPlane,
  keptControlPlane,
  labToActOn,
  readDaemonInfo,
  stopControlPlane,
  type ControlPlaneClient,
} from './client.js';
import { activityCommands } from './activity.js';
import { feeCommands } from './fees.js';
import { formatAssetBalances, formatAssetList, formatDown, formatEvent, formatLab } from './print.js';
import { connectInfoCommand } from './connect-info.js';
import { netCommands } from './net.js';
import { snapshotCommands } from './snapshots.js';
import { chosenLabs, copiesOf, listingCsv, listingText, listLabs, upCopies } from './workshop.js';

/**
 * The lab.yaml parser (its schema is compiled as it loads) and the scenario runner, loaded by the
 * commands that use them: together a tenth of a second of every other command's start.
 */
const labSpec = () => import('../spec/parse.js');
const scenarioRunner = () => import('../../../scenarios/src/cli.js');

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failed: 1, invalidInput: 2, conflictOrMissing: 3 } as const;

const VERSION = (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;

const program = new Command('reglab')
  .description('A regtest lab for Lightning and RGB payments')
  .version(VERSION, '-V, --version', "print reglab's version")
  .option('--json', 'machine-readable output')
  .option('--lab <name>', 'the lab to act on (default: the only lab that is up)')
  .showHelpAfterError();

const json = () => Boolean(program.opts().json);
const out = (human: string, machine: unknown) => console.log(json() ? JSON.stringify(machine, null, 2) : human);

const integer = (name: string) => (value: string) => {
  if (!/^\d+$/.test(value))
    throw new ApiError(400, 'INVALID_ARGUMENT', `${name} must be a whole number, not "${value}"`);
  return Number(value);
};

const labName = (client: ControlPlaneClient) => labToActOn(client, program.opts().lab as string | undefined);

/** The dashboard as a browser on this machine (or, listening beyond loopback, the room) reaches it. */
function dashboardUrl(url: string, daemon: DaemonInfo | undefined, token?: string): string {
  const base =
    daemon && daemon.listen !== '127.0.0.1' && daemon.listen !== '0.0.0.0'
      ? url.replace('127.0.0.1', daemon.listen)
      : url;
  return `${base}/${token ? `#token=${token}` : ''}`;
}

/** The control plane its keeper started again after the one following `lab`'s bring-up ended. */
async function controlPlaneAfterItEnded(home: string, lab: string): Promise<ControlPlaneClient> {
  const again = (await findControlPlane(home)) ?? (await keptControlPlane(home));
  if (again) return again;
  throw new ApiError(
    500,
    'CONTROL_PLANE_ENDED',
    `the control plane ended during the bring-up of lab ${lab} and was not started again (its log: ${join(home, 'logs', 'control-plane.log')}): \`reglab down\`, then \`reglab up\``,
  );
}

const lastEndedOf = async (client: ControlPlaneClient) =>
  (await client.request<{ lastEnded?: string }>('GET', '/health')).lastEnded ?? 'its stream of events ended';

const runningClient = () => controlPlaneOf(reglabHome());

program
  .command('validate')
  .description('check lab.yaml without starting anything')
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .action(async (options: { file: string }) => {
    const spec = (await labSpec()).parseLabSpec(readFileSync(options.file, 'utf8'), options.file);
    out(`${options.file}: valid (lab ${spec.name}, ${spec.nodes.length} nodes, ${spec.channels.length} channels)`, {
      valid: true,
      spec,
    });
  });

const nodePort = (value: string) => {
  const port = integer('--node-port')(value);
  if (port < 30000 || port > 32767)
    throw new ApiError(
      400,
      'INVALID_ARGUMENT',
      `--node-port must be in a cluster's NodePort range, 30000-32767, not ${port}`,
    );
  return port;
};

const quantity = (name: string) => (value: string) => {
  if (!/^[0-9]+(\.[0-9]+)?([KMGTPE]i?)?$/.test(value))
    throw new ApiError(
      400,
      'INVALID_ARGUMENT',
      `${name} must be an amount of bytes as Kubernetes writes it (2Gi, 500Mi), not "${value}"`,
    );
  return value;
};

program
  .command('render')
  .description("print the lab's objects for a cluster, made by the kubernetes runtime's own code (kubectl apply -f -)")
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .option('--kubernetes', 'Kubernetes manifests: the namespace, claims, Services and pods (the only format)')
  .option(
    '--control-plane',
    "instead, the lab's control plane inside the cluster (`reglab serve` as a Deployment in the lab's namespace, with its account, Role, state claim and Service), which brings the lab up itself",
  )
  .option(
    '--node-port <port>',
    'with --control-plane: also open its Service on this port of every node (30000-32767)',
    nodePort,
  )
  .option(
    '--state-size <size>',
    "with --control-plane: its state claim's size (labs, snapshots, queues)",
    quantity('--state-size'),
  )
  .action(
    async (options: {
      file: string;
      kubernetes?: boolean;
      controlPlane?: boolean;
      nodePort?: number;
      stateSize?: string;
    }) => {
      if (!options.kubernetes)
        throw new ApiError(400, 'INVALID_ARGUMENT', 'name the format to render: reglab render --kubernetes');
      if (!options.controlPlane && (options.nodePort !== undefined || options.stateSize !== undefined))
        throw new ApiError(400, 'INVALID_ARGUMENT', '--node-port and --state-size are options of --control-plane');
      const text = readFileSync(options.file, 'utf8');
      const render = await import('../lab/render-kubernetes.js');
      if (options.controlPlane) {
        const chosen = { nodePort: options.nodePort, stateSize: options.stateSize };
        if (json())
          console.log(JSON.stringify({ items: render.controlPlaneObjects(text, options.file, chosen) }, null, 2));
        else process.stdout.write(render.renderControlPlane(text, options.file, chosen));
        return;
      }
      const spec = (await labSpec()).parseLabSpec(text, options.file);
      if (json()) console.log(JSON.stringify({ items: render.kubernetesObjects(spec, text) }, null, 2));
      else process.stdout.write(render.renderKubernetes(spec, text));
    },
  );

program
  .command('up')
  .description('bring a lab up and wait until it is ready')
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .option(
    '--listen <address>',
    'where the control plane and its dashboard listen: 127.0.0.1 (the default), or 0.0.0.0 for a workshop (a token is then printed once)',
  )
  .option(
    '--from-snapshot <name>',
    'bring up the lab a snapshot holds, as it was saved (`reglab snapshot save`), instead of lab.yaml',
  )
  .option(
    '--copies <n>',
    'a workshop: bring up N labs from lab.yaml at once, named <prefix>1 to <prefix>N (then `reglab list --csv`)',
    integer('copies'),
  )
  .option('--name-prefix <prefix>', "the copies' names before their number (default: the lab's name and a dash)")
  .action(
    async (options: { file: string; listen?: string; fromSnapshot?: string; copies?: number; namePrefix?: string }) => {
      const yaml = options.fromSnapshot === undefined ? readFileSync(resolve(options.file), 'utf8') : undefined;
      const spec = yaml !== undefined ? (await labSpec()).parseLabSpec(yaml, options.file) : undefined;
      const home = reglabHome();
      if (options.copies !== undefined) {
        if (!spec || !yaml)
          throw new ApiError(400, 'INVALID_ARGUMENT', '--copies makes labs from lab.yaml, not from a snapshot');
        const copies = copiesOf(yaml, spec, options.copies, options.namePrefix ?? `${spec.name}-`);
        for (const copy of copies) (await labSpec()).parseLabSpec(copy.yaml, `${options.file} (copy ${copy.name})`);
        const client = await ensureControlPlane(home, options.listen);
        const daemon = readDaemonInfo(home);
        if (client.started && daemon?.token && !json())
          console.log(
            `the control plane listens on ${daemon.listen}; its own token (each lab also has one, \`reglab list\`):\n  ${daemon.token}`,
          );
        const outcomes = await upCopies(client, copies, options.file, json() ? undefined : (line) => console.log(line));
        const failed = outcomes.filter((outcome) => outcome.status !== 'ready');
        out(
          `\n${outcomes.map((outcome) => `${outcome.name} ${outcome.status} after ${outcome.seconds.toFixed(1)}s${outcome.message ? `: ${outcome.message.split('\n')[0]}` : ''}`).join('\n')}\n${failed.length === 0 ? `${outcomes.length} labs ready` : `${failed.length} of ${outcomes.length} labs not ready`}: their dashboards, tokens and URLs with \`reglab list --prefix ${options.namePrefix ?? `${spec.name}-`} --csv\``,
          { labs: outcomes },
        );
        if (failed.length > 0) process.exitCode = EXIT.failed;
        return;
      }
      const client = await ensureControlPlane(home, options.listen);
      const started = Date.now();
      const lab =
        yaml !== undefined
          ? await client.request<{ name: string }>('POST', '/labs', { yaml, file: options.file })
          : await client.request<{ name: string }>(
              'POST',
              `/snapshots/${encodeURIComponent(options.fromSnapshot!)}/up`,
            );
      if (!json())
        console.log(
          `bringing lab ${lab.name} up${yaml === undefined ? ` from snapshot ${options.fromSnapshot}` : ''} (control plane ${client.url})`,
        );
      const daemon = readDaemonInfo(home);
      if (client.started && daemon?.token && !json()) {
        console.log(
          `the control plane listens on ${daemon.listen}: actions and credentials need this token (shown once; also in ${daemonInfoFile(home)}):\n  ${daemon.token}`,
        );
      }
      let final: LabEvent | undefined;
      // the stream ends early when the control plane does (a crash, kill -9)
      await client
        .follow(`/labs/${lab.name}/events`, (event) => {
          const line = formatEvent(event as LabEvent);
          if (line && !json()) console.log(line);
          if (event.type === 'lab' && ['ready', 'failed', 'degraded'].includes(event.status as string))
            final = event as LabEvent;
          return final !== undefined;
        })
        .catch(() => undefined);
      const answering = final ? client : await controlPlaneAfterItEnded(home, lab.name);
      const inspected = await answering.request<Parameters<typeof formatLab>[0]>('GET', `/labs/${lab.name}`);
      const failed = inspected.status !== 'ready';
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      const dashboard = dashboardUrl(client.url, daemon, client.started ? daemon?.token : undefined);
      const why = final ? '' : ` (the control plane ended during the bring-up: ${await lastEndedOf(answering)})`;
      out(
        `\n${formatLab(inspected)}\n${failed ? `lab ${lab.name} ${inspected.status} after ${elapsed}s${why}: see \`reglab logs SERVICE\`, then \`reglab down\`` : `ready in ${elapsed}s`}\ndashboard: ${dashboard}`,
        { ...inspected, dashboard },
      );
      if (failed) process.exitCode = EXIT.failed;
    },
  );

program
  .command('down')
  .description(
    "stop the lab and remove its processes, containers and folder (a docker lab's volumes stay, for the next up of its name to remove, or an up from a snapshot to write over)",
  )
  .option('--volumes', "also remove a docker lab's volumes")
  .option('--force', 'forget a docker lab whose container engine no longer answers (what it runs there stays there)')
  .option('--all', 'every lab of this control plane (a workshop)')
  .option('--prefix <prefix>', 'every lab whose name starts so (a workshop: `reglab up --copies`)')
  .action(async (options: { volumes?: boolean; force?: boolean; all?: boolean; prefix?: string }) => {
    const home = reglabHome();
    const client = (await findControlPlane(home)) ?? (await ensureControlPlane(home));
    const { labs } = await client.request<{ labs: { name: string }[] }>('GET', '/labs');
    if (options.all || options.prefix !== undefined) {
      const chosen = chosenLabs(labs, options);
      const query = `?volumes=${Boolean(options.volumes)}${options.force ? '&force=true' : ''}`;
      const removed = await Promise.all(
        chosen.map(async (name) => ({
          name,
          ...(await client.request<{ leftInEngine?: string; detached?: string[] }>('DELETE', `/labs/${name}${query}`)),
        })),
      );
      const rest = await client.request<{ labs: unknown[] }>('GET', '/labs');
      if (rest.labs.length === 0) await stopControlPlane(home, client);
      out(removed.length === 0 ? 'no lab to take down' : removed.map((lab) => formatDown(lab.name, lab)).join('\n'), {
        stopped: chosen,
      });
      return;
    }
    const name = (program.opts().lab as string | undefined) ?? (labs.length === 1 ? labs[0].name : undefined);
    if (labs.length === 0) {
      await stopControlPlane(home, client);
      out('no lab is up', { stopped: [] });
      return;
    }
    if (!name)
      throw new ApiError(
        404,
        'NO_SUCH_LAB',
        `several labs are up (${labs.map((lab) => lab.name).join(', ')}): choose one with --lab`,
      );
    const { leftInEngine, detached } = await client.request<{ leftInEngine?: string; detached?: string[] }>(
      'DELETE',
      `/labs/${name}?volumes=${Boolean(options.volumes)}${options.force ? '&force=true' : ''}`,
    );
    const rest = await client.request<{ labs: unknown[] }>('GET', '/labs');
    if (rest.labs.length === 0) await stopControlPlane(home, client);
    out(formatDown(name, { leftInEngine, detached }), {
      stopped: [name],
      ...(leftInEngine ? { leftInEngine } : {}),
      ...(detached ? { detached } : {}),
    });
  });

program
  .command('status')
  .description(
    'services, ports, node pubkeys, balances, channels and chain height (exit code 1 when something is not ready, or the container engine does not answer)',
  )
  .action(async () => {
    const client = await runningClient();
    const inspected = await client.request<Parameters<typeof formatLab>[0]>('GET', `/labs/${await labName(client)}`);
    const { restarts, lastEnded } = await client.request<{ restarts: number; lastEnded?: string }>('GET', '/health');
    const restarted =
      restarts > 0
        ? `\ncontrol plane: started again by its keeper (${restarts} time${restarts === 1 ? '' : 's'}); the last one ended: ${lastEnded}`
        : '';
    out(formatLab(inspected) + restarted, { ...inspected, controlPlane: { restarts, lastEnded } });
    if (
      inspected.status !== 'ready' ||
      inspected.engine?.answering === false ||
      inspected.services.some((service) => service.status !== 'ready')
    )
      process.exitCode = EXIT.failed;
  });

program
  .command('list')
  .description(
    "the labs up, each with its dashboard, its own token and its services' URLs (--csv: a sheet to hand out)",
  )
  .option('--prefix <prefix>', 'only the labs whose name starts so')
  .option('--csv', 'one line per lab: lab,status,dashboard,token,wallet_server,faucet,chain_adapter')
  .option('--host <address>', 'the address the room reaches this machine at, in the URLs (instead of 127.0.0.1)')
  .action(async (options: { prefix?: string; csv?: boolean; host?: string }) => {
    const home = reglabHome();
    const client = await runningClient();
    const { labs } = await client.request<{ labs: { name: string }[] }>('GET', '/labs');
    const names = chosenLabs(labs, { all: options.prefix === undefined, prefix: options.prefix });
    const base = dashboardUrl(client.url, readDaemonInfo(home)).replace(/\/$/, '');
    const rows = await listLabs(client, names, base, options.host);
    if (options.csv && !json()) process.stdout.write(listingCsv(rows));
    else out(listingText(rows), { labs: rows });
  });

program
  .command('open')
  .description("print the dashboard's URL")
  .action(async () => {
    const home = reglabHome();
    const client = await runningClient();
    const url = dashboardUrl(client.url, readDaemonInfo(home));
    out(url, { dashboard: url });
  });

for (const [action, what] of [
  ['stop', 'stop a service cleanly (the supervisor leaves it stopped)'],
  ['start', 'start a stopped or failed service'],
  ['restart', 'stop and start a service'],
  ['kill', 'SIGKILL a service: a crash, restarted by its policy'],
] as const) {
  program
    .command(action)
    .description(what)
    .argument('<service>', 'a service of the lab (see reglab status)')
    .action(async (service: string) => {
      const client = await runningClient();
      const done = await client.request<{ service: string; status: string }>(
        'POST',
        `/labs/${await labName(client)}/services/${service}/${action}`,
      );
      out(`${done.service} ${done.status}`, done);
    });
}

for (const action of ['connect', 'disconnect'] as const) {
  program
    .command(action)
    .description(`${action} two Lightning nodes as peers`)
    .argument('<a>')
    .argument('<b>')
    .action(async (a: string, b: string) => {
      const client = await runningClient();
      const done = await client.request<{ a: string; b: string }>(
        'POST',
        `/labs/${await labName(client)}/peers/${action}`,
        { a, b },
      );
      out(`${a} and ${b} ${action}ed`, done);
    });
}

type JobView = { id: string; state: string; result?: Record<string, unknown>; error?: string };

async function runJob(
  path: string,
  body: unknown,
  describe: (result: Record<string, unknown>) => string,
): Promise<void> {
  const client = await runningClient();
  const job = await client.request<JobView>('POST', `/labs/${await labName(client)}${path}?wait=true`, body, {
    idempotencyKey: randomUUID(),
  });
  if (job.state !== 'completed') {
    out(`${job.id} ${job.state}: ${job.error ?? 'not finished within 120 s'}`, job);
    process.exitCode = EXIT.failed;
    return;
  }
  out(describe(job.result ?? {}), job);
}

/** An amount that moves something: refused here in plain words, not as the API schema's path. */
const positiveInteger = (name: string) => (value: string) => {
  const parsed = integer(name)(value);
  if (parsed < 1) throw new ApiError(400, 'INVALID_ARGUMENT', `${name} must be 1 or more, not ${value}`);
  return parsed;
};

program
  .command('mine')
  .description('mine blocks (to the lab wallet, or to --address)')
  .argument('[blocks]', 'how many', integer('blocks'), 1)
  .option('--address <address>', 'pay the block rewards to this regtest address')
  .action((blocks: number, options: { address?: string }) =>
    runJob(
      '/mine',
      { blocks, address: options.address },
      (result) => `mined ${blocks} block(s); height ${result.height}`,
    ),
  );

program
  .command('fund')
  .description('send coins from the lab wallet to a node or an address, and confirm them')
  .argument('<target>', 'a node name or a regtest address')
  .argument('<amount_sat>', 'amount in satoshis', integer('amount_sat'))
  .action((target: string, amount: number) => {
    const isAddress = /^(bcrt1|[mn2])/.test(target) && target.length > 25;
    return runJob(
      '/fund',
      { ...(isAddress ? { address: target } : { node: target }), amount_sat: amount },
      (result) => `sent ${amount} sat to ${result.address} in ${result.txid} (confirmed at height ${result.height})`,
    );
  });

const channel = program.command('channel').description('channels between the lab nodes');
channel
  .command('close')
  .description("close <node>'s channel with <partner>, or the one --channel-id names (needed when they have several)")
  .argument('<node>')
  .argument('[partner]')
  .option('--channel-id <id>', 'the channel as the node names it (funding txid:vout), as `reglab status` lists it')
  .option('--force', 'force close (the funds wait for their timelock)')
  .action((node: string, partner: string | undefined, options: { force?: boolean; channelId?: string }) => {
    if (partner === undefined && options.channelId === undefined)
      throw new ApiError(
        400,
        'INVALID_ARGUMENT',
        'name the channel: reglab channel close <node> <partner>, or reglab channel close <node> --channel-id <id>',
      );
    return runJob(
      '/channels/close',
      { node, partner, channel_id: options.channelId, force: Boolean(options.force) },
      (result) =>
        `channel ${result.channelId} closing in ${result.closingTxid}${result.maturityBlocks !== undefined ? `; ${node}'s funds are swept after ${result.maturityBlocks} more blocks` : ''}`,
    );
  });
channel
  .command('open')
  .argument('<from>')
  .argument('<to>')
  .argument('<capacity_sat>', 'capacity in satoshis', integer('capacity_sat'))
  .option('--push <sat>', 'satoshis given to the other side', integer('push'), 0)
  .action((from: string, to: string, capacity: number, options: { push: number }) =>
    runJob(
      '/channels',
      { from, to, capacity_sat: capacity, push_sat: options.push },
      (result) => `channel ${from} -> ${to} open (${result.fundingTxid}:${result.fundingVout})`,
    ),
  );

program
  .command('pay')
  .description(
    'an invoice on <to>, paid by <from> over the lab channels; or, with --invoice, any BOLT11 invoice paid by <from>',
  )
  .argument('<from>')
  .argument('[to]')
  .argument('[amount_sat]', 'amount in satoshis', integer('amount_sat'))
  .option('--keysend', 'pay by keysend, without an invoice')
  .option(
    '--invoice <bolt11>',
    "pay this invoice (a wallet server's, LNbits', any regtest node's) instead of one of <to>",
  )
  .action(
    (
      from: string,
      to: string | undefined,
      amount: number | undefined,
      options: { keysend?: boolean; invoice?: string },
    ) => {
      const paid = (result: Record<string, unknown>, payee: string) =>
        `paid ${result.amountSat} sat ${from} -> ${payee}${result.hops === undefined ? '' : ` over ${result.hops} hop(s)`}, fee ${result.feeSat} sat (hash ${result.paymentHash})`;
      if (options.invoice !== undefined) {
        if (to !== undefined || options.keysend)
          throw new ApiError(
            400,
            'INVALID_ARGUMENT',
            'with --invoice, name only the payer: reglab pay <from> --invoice <bolt11>',
          );
        return runJob('/payments', { from, invoice: options.invoice }, (result) => paid(result, 'the invoice'));
      }
      if (to === undefined || amount === undefined)
        throw new ApiError(
          400,
          'INVALID_ARGUMENT',
          'name the payee and the amount (reglab pay <from> <to> <amount_sat>), or an invoice (reglab pay <from> --invoice <bolt11>)',
        );
      return runJob('/payments', { from, to, amount_sat: amount, keysend: Boolean(options.keysend) }, (result) =>
        paid(result, to),
      );
    },
  );

program
  .command('reorg')
  .description('replace the last N blocks by N+1 new ones (their transactions go back to the mempool)')
  .argument('<blocks>', 'how many blocks to replace', integer('blocks'))
  .action((blocks: number) =>
    runJob(
      '/reorg',
      { blocks },
      (result) => `replaced ${result.replaced} block(s) above height ${result.forkHeight}; height ${result.newHeight}`,
    ),
  );

const asset = program
  .command('asset')
  .description("RGB assets on the lab's rgb and rln nodes (amounts in the asset's smallest unit)");
asset
  .command('issue')
  .description('issue an asset on a node; the lab names it by TICKER from then on')
  .argument('<node>')
  .argument('<ticker>', '1-8 upper-case letters and digits, starting with a letter')
  .argument('<amount>', 'the supply (a uda asset: 1)', positiveInteger('amount'))
  .option('--name <name>', 'its name (default: the ticker)')
  .option('--precision <digits>', 'decimal places a wallet shows', integer('precision'), 0)
  .addOption(
    new Option(
      '--schema <schema>',
      'nia (fungible, with a ticker), cfa (fungible, no ticker on-chain) or uda (one unique token)',
    )
      .choices(['nia', 'cfa', 'uda'])
      .default('nia'),
  )
  .action(
    async (
      node: string,
      ticker: string,
      amount: number,
      options: { name?: string; precision: number; schema: string },
    ) => {
      const client = await runningClient();
      const issued = await client.request<{ asset: { assetId: string } }>(
        'POST',
        `/labs/${await labName(client)}/assets`,
        { node, ticker, amount, name: options.name, precision: options.precision, schema: options.schema },
      );
      out(`issued ${amount} ${ticker} on ${node} (${options.schema} ${issued.asset.assetId})`, issued);
    },
  );
asset
  .command('send')
  .description('an invoice of TO (blinded, or --witness), paid by FROM, a block, settled on both sides')
  .argument('<from>')
  .argument('<to>')
  .argument('<asset>', "the lab's ticker of the asset, or its asset id")
  .argument('<amount>', "in the asset's smallest unit", positiveInteger('amount'))
  .option('--witness', 'pay to a new output of TO instead of a blinded UTXO of its own')
  .action((from: string, to: string, asset: string, amount: number, options: { witness?: boolean }) =>
    runJob('/assets/send', { from, to, asset, amount, witness: Boolean(options.witness) }, (result) => {
      const balances = Object.entries(result.balances as Record<string, number>)
        .map(([node, held]) => `${node} ${held}`)
        .join(', ');
      return `sent ${amount} ${result.asset} ${from} -> ${to} in ${result.txid} (${options.witness ? 'witness' : 'blinded'}); now ${balances}`;
    }),
  );
asset
  .command('balance')
  .description('what each rgb and rln node holds (or NODE only)')
  .argument('[node]')
  .action(async (node?: string) => {
    const client = await runningClient();
    const { nodes } = await client.request<{ nodes: Parameters<typeof formatAssetBalances>[0] }>(
      'GET',
      `/labs/${await labName(client)}/assets/balances${node ? `?node=${encodeURIComponent(node)}` : ''}`,
    );
    out(formatAssetBalances(nodes), { nodes });
  });
asset
  .command('list')
  .description("the lab's assets, with who holds how much")
  .action(async () => {
    const client = await runningClient();
    const { assets } = await client.request<{ assets: Parameters<typeof formatAssetList>[0] }>(
      'GET',
      `/labs/${await labName(client)}/assets`,
    );
    out(formatAssetList(assets), { assets });
  });

program
  .command('auto-mine')
  .description('mine one block every N seconds (0 stops)')
  .argument('<seconds>', 'interval', integer('seconds'))
  .action(async (seconds: number) => {
    const client = await runningClient();
    const name = await labName(client);
    await client.request('PUT', `/labs/${name}/auto-mining`, { seconds });
    out(seconds > 0 ? `lab ${name} mines a block every ${seconds}s` : `auto-mining of lab ${name} stopped`, {
      lab: name,
      seconds,
    });
  });

program
  .command('logs')
  .description("the last lines of a service's log")
  .argument('<service>')
  .addOption(new Option('-n, --lines <n>', 'how many lines').argParser(integer('lines')).default(100))
  .action(async (service: string, options: { lines: number }) => {
    const client = await runningClient();
    const text = await client.request<string>(
      'GET',
      `/labs/${await labName(client)}/logs/${service}?lines=${options.lines}`,
    );
    process.stdout.write(json() ? `${JSON.stringify({ service, log: text })}\n` : text);
  });

snapshotCommands(program, { client: runningClient, labName, out });
activityCommands(program, { client: runningClient, labName, out });
feeCommands(program, { client: runningClient, labName, out });
connectInfoCommand(program, { client: runningClient, labName, out });
netCommands(program, { client: runningClient, labName, out });

const images = program.command('images').description('container images for the docker and kubernetes runtimes');

/** The images of the control plane inside a cluster, by what runs them; none unless `controlPlane`. */
const controlPlaneImages = async (controlPlane?: boolean): Promise<Record<string, string>> =>
  controlPlane ? (await import('../runtimes/kubernetes/control-plane-manifests.js')).CONTROL_PLANE_IMAGES : {};

const CONTROL_PLANE_IMAGES_OPTION = [
  '--control-plane',
  'also the images of the control plane inside the cluster (`reglab render --kubernetes --control-plane`)',
] as const;

/** The refs of the images lab.yaml's services run (built by `reglab images build`), and the control plane's. */
async function labImageRefs(file: string, controlPlane?: boolean): Promise<string[]> {
  const spec = (await labSpec()).parseLabSpec(readFileSync(file, 'utf8'), file);
  const [{ planLab }, { imageRecipesFor }, { RECIPES }] = await Promise.all([
    import('../lab/plan.js'),
    import('../nodes/registry.js'),
    import('../images/catalog.js'),
  ]);
  const recipes = {
    ...imageRecipesFor(
      planLab(spec).map((service) => service.kind),
      'local',
    ),
    ...(await controlPlaneImages(controlPlane)),
  };
  return [...new Set(Object.values(recipes).map((recipe) => RECIPES[recipe].ref))];
}

images
  .command('load')
  .description(
    "load the lab's images (built with `reglab images build`) into a node's containerd, for a cluster without a registry",
  )
  .requiredOption(
    '--containerd <socket>',
    "the node's containerd socket (the test cluster's: ~/.cache/reglab/test-cluster/run/containerd/containerd.sock)",
  )
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .option(...CONTROL_PLANE_IMAGES_OPTION)
  .action(async (options: { containerd: string; file: string; controlPlane?: boolean }) => {
    const refs = await labImageRefs(options.file, options.controlPlane);
    const [{ discoverEngine }, { loadIntoContainerd }] = await Promise.all([
      import('../runtimes/docker/index.js'),
      import('../images/cluster-images.js'),
    ]);
    const loaded = await loadIntoContainerd((await discoverEngine()).docker, options.containerd, refs, (line) =>
      json() ? undefined : console.log(`  ${line}`),
    );
    out(loaded.map((image) => `${image.ref}: ${image.action}`).join('\n'), { images: loaded });
  });

images
  .command('push')
  .description("push the lab's images (built with `reglab images build`) to a registry a cluster pulls from")
  .argument('<registry>', "e.g. registry.example.com/reglab: lab.yaml's kubernetes.image_registry")
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .option(...CONTROL_PLANE_IMAGES_OPTION)
  .action(async (registry: string, options: { file: string; controlPlane?: boolean }) => {
    const refs = await labImageRefs(options.file, options.controlPlane);
    const [{ discoverEngine }, { pushToRegistry }] = await Promise.all([
      import('../runtimes/docker/index.js'),
      import('../images/cluster-images.js'),
    ]);
    const pushed = await pushToRegistry((await discoverEngine()).docker, registry, refs, (line) =>
      json() ? undefined : console.log(`  ${line}`),
    );
    out(pushed.map((image) => `${image.ref}: ${image.action}`).join('\n'), { images: pushed });
  });

images
  .command('build')
  .description(
    'build the images a lab needs (local: from a debootstrap base and binaries built here), skipping those built for the same pins; a cluster then gets them with `images load` or `images push`',
  )
  .option('-f, --file <path>', 'lab file', 'lab.yaml')
  .option('--upstream', 'the upstream flavour (official releases and sources: needs the internet)')
  .option('--local', 'the local flavour (the default): no registry needed')
  .option('--force', 'rebuild even when up to date')
  .option(...CONTROL_PLANE_IMAGES_OPTION)
  .action(async (options: { file: string; upstream?: boolean; force?: boolean; controlPlane?: boolean }) => {
    const spec = (await labSpec()).parseLabSpec(readFileSync(options.file, 'utf8'), options.file);
    const { discoverEngine, buildLabImages } = await import('../runtimes/docker/index.js');
    const engine = await discoverEngine();
    const result = await buildLabImages(engine.docker, spec, {
      flavour: options.upstream ? 'upstream' : 'local',
      force: options.force,
      extra: await controlPlaneImages(options.controlPlane),
      onProgress: (line) => !json() && console.log(`  ${line}`),
    });
    out(`images for lab ${spec.name} ready`, result);
  });

program
  .command('scenario')
  .description('scenario files: flows run against a lab, with console, JUnit and JSON reports (docs/scenarios.md)')
  .command('run')
  .argument('<paths...>', 'scenario files, or folders whose *.yaml files run in name order')
  .option(
    '--report <format=file>',
    'also write junit=FILE or json=FILE (repeatable)',
    (value: string, all: string[]) => [...all, value],
    [] as string[],
  )
  .action(async (paths: string[], options: { report: string[] }) => {
    const { prepareScenarioRun, runScenarios, ScenarioUsageError } = await scenarioRunner();
    let prepared;
    try {
      prepared = prepareScenarioRun(paths, options.report);
    } catch (error) {
      if (error instanceof ScenarioUsageError)
        throw new ApiError(400, 'INVALID_SCENARIO', error.message, error.problems);
      throw error;
    }
    const client = await runningClient();
    const lab = await labName(client);
    const report = await runScenarios(prepared, {
      api: client,
      lab,
      print: json() ? undefined : (line) => console.log(line),
    });
    if (json()) console.log(JSON.stringify(report.scenarios.length === 1 ? report.scenarios[0] : report, null, 2));
    process.exitCode = report.passed ? EXIT.ok : EXIT.failed;
  });

program
  .command('mcp')
  .description(
    "serve the control plane's operations as Model Context Protocol tools over stdio, for an AI agent to drive the lab (docs/mcp.md)",
  )
  .action(async () => {
    const { serveMcp } = await import('../mcp/server.js'); // the MCP SDK, loaded by this command only
    await serveMcp({
      home: reglabHome(),
      lab: program.opts().lab as string | undefined,
      cwd: process.cwd(),
      version: VERSION,
    });
  });

program
  .command('serve')
  .description('run the control plane in the foreground (reglab up starts it when needed)')
  .option('--listen <address>', 'where the API and the dashboard listen (default 127.0.0.1)')
  .option(
    '--port <port>',
    "the API's port (default: the last control plane's of this folder, else a free one)",
    integer('--port'),
  )
  .option(
    '--up <file>',
    'bring up the lab this lab.yaml describes once started, unless this state folder has brought it up before (a control plane in a cluster: its ConfigMap)',
  )
  .action(async (options: { listen?: string; port?: number; up?: string }) => {
    const { readLabAtStart, upAtStart } = await import('../lab-at-start.js');
    const wanted = options.up === undefined ? undefined : readLabAtStart(options.up);
    const { startControlPlane } = await import('../daemon.js'); // the CLI's other commands need none of it
    const running = await startControlPlane({
      logger: true,
      listen: options.listen,
      port: options.port,
      // a control plane open to the network keeps the token it is given (a Secret, in a cluster)
      token: process.env.REGLAB_TOKEN || undefined,
    });
    console.log(`control plane listening on ${running.url}`);
    const stop = () => void running.stop().then(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    if (wanted) console.log(await upAtStart(running.manager, wanted));
  });

program.parseAsync().catch((caught: unknown) => {
  // refused here as the API would refuse it (`reglab render`)
  const error =
    caught instanceof DomainError && !(caught instanceof LabSpecError)
      ? new ApiError(STATUS_OF_KIND[caught.kind], caught.code, caught.message)
      : caught;
  if (error instanceof LabSpecError) {
    out(error.problems.map(formatProblem).join('\n'), {
      error: { code: 'INVALID_LAB_SPEC', problems: error.problems },
    });
    process.exitCode = EXIT.invalidInput;
  } else if (error instanceof ApiError) {
    const message = error.problems ? error.problems.map(formatProblem).join('\n') : error.message;
    if (json())
      console.log(
        JSON.stringify({ error: { code: error.code, message: error.message, problems: error.problems } }, null, 2),
      );
    else console.error(`reglab: ${message}`);
    process.exitCode =
      error.status === 400
        ? EXIT.invalidInput
        : error.status === 404 || error.status === 409
          ? EXIT.conflictOrMissing
          : EXIT.failed;
  } else {
    const message = error instanceof Error ? error.message : String(error);
    if (json()) console.log(JSON.stringify({ error: { code: 'FAILED', message } }));
    else console.error(`reglab: ${message}`);
    process.exitCode = (error as NodeJS.ErrnoException).code === 'ENOENT' ? EXIT.invalidInput : EXIT.failed;
  }
});
