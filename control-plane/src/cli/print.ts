import type { LabEvent } from '../lab/events.js';

/** An asset as a node holds it (GET /labs/{name}, GET /labs/{name}/assets/balances). */
type Holding = { ticker?: string; assetId: string; schema: string; settled: number; future: number };

type Inspected = {
  name: string;
  status: string;
  runtime: string;
  dir: string;
  error?: string;
  engine?: { answering: boolean; since: string; message?: string };
  chain?: { kind: string; height?: number; error?: string };
  labWallet?: { address: string; spendableSat?: number; error?: string };
  services: {
    name: string;
    kind: string;
    status: string;
    info: Record<string, string>;
    error?: string;
    restarts?: number;
  }[];
  nodes: {
    name: string;
    status?: string;
    pubkey?: string;
    chainBalanceSat?: number;
    channelBalanceSat?: number;
    channels?: {
      id?: string;
      partner: string;
      capacitySat: number;
      localSat: number;
      remoteSat: number;
      active: boolean;
    }[];
    pendingCloses?: PendingClose[];
    assets?: Holding[];
    error?: string;
  }[];
  phases: { name: string; ms: number }[];
  /** A lab with network faults: the pairs of services with a fault, and the nodes cut off. */
  network?: { links: { between: [string, string]; description: string }[]; cutOff: string[] };
};

/** A channel being closed, as GET /labs/{name} shows it. */
type PendingClose = { fundingTxid: string; pendingSat: number; blocksUntilSweep?: number; sweepOverdue?: true };

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** Where a closing channel's funds are: timelocked for N more blocks, matured and being swept, or overdue. */
function closing(close: PendingClose, node: string): string {
  const wait =
    close.blocksUntilSweep === undefined
      ? ''
      : close.blocksUntilSweep > 0
        ? `, spendable in ${close.blocksUntilSweep} block${close.blocksUntilSweep === 1 ? '' : 's'}`
        : close.sweepOverdue
          ? `, matured but not swept: \`reglab restart ${node}\` lets lnd sweep it (lnd issue #10938)`
          : ', sweeping';
  return `closing (funded by ${close.fundingTxid.slice(0, 12)}…): ${close.pendingSat} sat${wait}`;
}

/** One line per bring-up event, as `reglab up` prints them. */
export function formatEvent(event: LabEvent): string | undefined {
  switch (event.type) {
    case 'service':
      if (event.status === 'ready')
        return `  ✓ ${event.service} ready${mainEndpoint(event.info) ? `  ${mainEndpoint(event.info)}` : ''}`;
      if (event.status === 'starting') return `  … ${event.service} starting`;
      if (event.status === 'failed') return `  ✗ ${event.service} failed: ${event.message ?? ''}`;
      if (event.status === 'restarting')
        return `  ↻ ${event.service} restarting: ${(event.message ?? '').split('\n')[0]}`;
      if (event.status === 'unhealthy')
        return `  ! ${event.service} unhealthy: ${(event.message ?? '').split('\n')[0]}`;
      if (event.status === 'waiting') return `  … ${event.service} ${(event.message ?? 'waiting').split('\n')[0]}`;
      if (event.status === 'stopped') return `  ■ ${event.service} stopped`;
      return undefined;
    case 'phase':
      return `  — ${event.phase} done in ${seconds(event.ms)}`;
    case 'image':
      return event.line
        .split('\n')
        .map((line) => `  · ${line}`)
        .join('\n');
    case 'engine':
      return event.answering
        ? '  ✓ the container engine answers again'
        : `  ! ${event.message ?? 'the container engine does not answer'}`;
    case 'network':
      return `  ≈ network ${event.action} ${event.target}: ${event.links.map((link) => `${link.between.join(' ↔ ')} ${link.description}`).join('; ') || 'no link had a fault'}`;
    case 'lab':
      return event.status === 'failed'
        ? `lab ${event.lab} failed: ${event.message ?? ''}`
        : `lab ${event.lab} ${event.status}`;
    default:
      return undefined;
  }
}

/** The faults of a lab's links as `reglab status` shows them (`reglab net status` shows every link). */
function formatNetwork(network: NonNullable<Inspected['network']>): string[] {
  if (network.links.length === 0) return ['  network: faults on (`reglab net`), none set'];
  return [
    '  network faults:',
    ...network.links.map((link) => `    ${link.between.join(' ↔ ').padEnd(24)} ${link.description}`),
    ...(network.cutOff.length > 0 ? [`    cut off: ${network.cutOff.join(', ')}`] : []),
  ];
}

function mainEndpoint(info?: Record<string, string>): string | undefined {
  if (!info) return undefined;
  return info.url ?? info.electrum ?? info.rpc ?? (info.pubkey ? `pubkey ${info.pubkey}` : undefined);
}

export function formatLab(lab: Inspected): string {
  const lines = [`lab ${lab.name}: ${lab.status} (${lab.runtime} runtime, folder ${lab.dir})`];
  if (lab.error) lines.push(`  error: ${lab.error}`);
  if (lab.engine && !lab.engine.answering)
    lines.push(
      `  container engine: not answering since ${lab.engine.since} (the lab's containers run on; none can be started, stopped or restarted until it answers): ${lab.engine.message ?? ''}`,
    );
  if (lab.chain)
    lines.push(
      `  chain: ${lab.chain.kind} ${lab.chain.height === undefined ? (lab.chain.error ?? 'not answering') : `at height ${lab.chain.height}`}`,
    );
  if (lab.labWallet)
    lines.push(
      `  lab wallet: ${lab.labWallet.spendableSat === undefined ? (lab.labWallet.error ?? 'not answering') : `${lab.labWallet.spendableSat} sat spendable`} (${lab.labWallet.address})`,
    );
  lines.push('  services:');
  for (const service of lab.services) {
    const details = Object.entries(service.info)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ');
    const restarts = service.restarts ? ` (restarted ${service.restarts}×)` : '';
    lines.push(
      `    ${service.name.padEnd(14)} ${service.kind.padEnd(14)} ${service.status.padEnd(10)} ${details}${restarts}`,
    );
    if (service.error) lines.push(`      ${service.error.split('\n')[0]}`);
  }
  const nodes = lab.nodes.filter(
    (node) => node.chainBalanceSat !== undefined || node.error || (node.status && node.status !== 'ready'),
  );
  if (nodes.length > 0) lines.push('  nodes:');
  for (const node of nodes) {
    if (node.error || node.chainBalanceSat === undefined) {
      lines.push(`    ${node.name}: ${node.error ?? node.status}`);
      continue;
    }
    lines.push(
      `    ${node.name.padEnd(10)} on-chain ${node.chainBalanceSat} sat${node.channelBalanceSat === undefined ? '' : `, in channels ${node.channelBalanceSat} sat`}`,
    );
    for (const channel of node.channels ?? []) {
      lines.push(
        `      ↔ ${channel.partner}: ${channel.localSat}/${channel.capacitySat} sat local${channel.active ? '' : ' (inactive)'}${channel.id ? `  ${channel.id}` : ''}`,
      );
    }
    for (const close of node.pendingCloses ?? []) lines.push(`      ⇣ ${closing(close, node.name)}`);
    for (const asset of node.assets ?? []) lines.push(`      ◆ ${holding(asset)}`);
  }
  if (lab.network) lines.push(...formatNetwork(lab.network));
  if (lab.phases.length > 0)
    lines.push(`  bring-up: ${lab.phases.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ')}`);
  return lines.join('\n');
}

/** `LAB 700 (nia rgb:...)`, with what it will be once pending transfers settle when that differs. */
function holding(asset: Holding): string {
  const pending = asset.future === asset.settled ? '' : `, ${asset.future} once pending transfers settle`;
  return `${asset.ticker ?? asset.assetId} ${asset.settled}${pending} (${asset.schema} ${asset.assetId})`;
}

/** `reglab asset balance`: each asset node with what it holds. */
export function formatAssetBalances(nodes: { node: string; status: string; assets?: Holding[] }[]): string {
  const lines: string[] = [];
  for (const node of nodes) {
    if (!node.assets) lines.push(`${node.node}: ${node.status}`);
    else if (node.assets.length === 0) lines.push(`${node.node}: no assets`);
    else lines.push(`${node.node}:`, ...node.assets.map((asset) => `  ${holding(asset)}`));
  }
  return lines.join('\n') || 'no rgb or rln nodes in this lab';
}

/** `reglab asset list`: the lab's assets with who holds how much. */
export function formatAssetList(
  assets: {
    ticker?: string;
    assetId: string;
    schema?: string;
    name?: string;
    precision?: number;
    issuedSupply?: number;
    holders: Record<string, number>;
  }[],
): string {
  if (assets.length === 0) return 'no assets in this lab: issue one with `reglab asset issue NODE TICKER AMOUNT`';
  return assets
    .map((asset) => {
      const what = asset.schema
        ? `${asset.schema}, "${asset.name}", precision ${asset.precision}, supply ${asset.issuedSupply}`
        : 'not held by any ready node';
      const holders = Object.entries(asset.holders)
        .map(([node, amount]) => `${node} ${amount}`)
        .join(', ');
      return `${(asset.ticker ?? '-').padEnd(9)} ${asset.assetId}\n          ${what}${holders ? `; held: ${holders}` : ''}`;
    })
    .join('\n');
}

/**
 * What `reglab down` says: the lab down, or forgotten (its engine gone), and the containers of others it took off the
 * lab's network.
 */
export function formatDown(lab: string, removed: { leftInEngine?: string; detached?: string[] }): string {
  if (removed.leftInEngine)
    return `lab ${lab} is forgotten: its container engine does not answer; ${removed.leftInEngine}`;
  const detached = removed.detached ?? [];
  if (detached.length === 0) return `lab ${lab} is down`;
  const which = detached.length === 1 ? 'a container not of the lab, was' : 'containers not of the lab, were';
  return `lab ${lab} is down; ${detached.join(', ')}, ${which} disconnected from its network and left in place`;
}
