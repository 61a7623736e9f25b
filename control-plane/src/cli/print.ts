import type { LabEvent } from '../lab/events.js';

type Inspected = {
  name: string;
  status: string;
  runtime: string;
  dir: string;
  error?: string;
  chain?: { kind: string; height: number };
  labWallet?: { address: string; spendableSat: number };
  services: { name: string; kind: string; status: string; info: Record<string, string>; error?: string; restarts?: number }[];
  nodes: { name: string; status?: string; pubkey?: string; chainBalanceSat?: number; channelBalanceSat?: number; channels?: { partner: string; capacitySat: number; localSat: number; remoteSat: number; active: boolean }[]; error?: string }[];
  phases: { name: string; ms: number }[];
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** One line per bring-up event, as `reglab up` prints them. */
export function formatEvent(event: LabEvent): string | undefined {
  switch (event.type) {
    case 'service':
      if (event.status === 'ready') return `  ✓ ${event.service} ready${mainEndpoint(event.info) ? `  ${mainEndpoint(event.info)}` : ''}`;
      if (event.status === 'starting') return `  … ${event.service} starting`;
      if (event.status === 'failed') return `  ✗ ${event.service} failed: ${event.message ?? ''}`;
      if (event.status === 'restarting') return `  ↻ ${event.service} restarting: ${(event.message ?? '').split('\n')[0]}`;
      if (event.status === 'unhealthy') return `  ! ${event.service} unhealthy: ${(event.message ?? '').split('\n')[0]}`;
      if (event.status === 'stopped') return `  ■ ${event.service} stopped`;
      return undefined;
    case 'phase':
      return `  — ${event.phase} done in ${seconds(event.ms)}`;
    case 'lab':
      return event.status === 'failed' ? `lab ${event.lab} failed: ${event.message ?? ''}` : `lab ${event.lab} ${event.status}`;
    default:
      return undefined;
  }
}

function mainEndpoint(info?: Record<string, string>): string | undefined {
  if (!info) return undefined;
  return info.url ?? info.electrum ?? info.rpc ?? (info.pubkey ? `pubkey ${info.pubkey}` : undefined);
}

export function formatLab(lab: Inspected): string {
  const lines = [`lab ${lab.name}: ${lab.status} (${lab.runtime} runtime, folder ${lab.dir})`];
  if (lab.error) lines.push(`  error: ${lab.error}`);
  if (lab.chain) lines.push(`  chain: ${lab.chain.kind} at height ${lab.chain.height}`);
  if (lab.labWallet) lines.push(`  lab wallet: ${lab.labWallet.spendableSat} sat spendable (${lab.labWallet.address})`);
  lines.push('  services:');
  for (const service of lab.services) {
    const details = Object.entries(service.info).map(([key, value]) => `${key}=${value}`).join(' ');
    const restarts = service.restarts ? ` (restarted ${service.restarts}×)` : '';
    lines.push(`    ${service.name.padEnd(14)} ${service.kind.padEnd(14)} ${service.status.padEnd(10)} ${details}${restarts}`);
    if (service.error) lines.push(`      ${service.error.split('\n')[0]}`);
  }
  const nodes = lab.nodes.filter((node) => node.chainBalanceSat !== undefined || node.error || (node.status && node.status !== 'ready'));
  if (nodes.length > 0) lines.push('  nodes:');
  for (const node of nodes) {
    if (node.error || node.chainBalanceSat === undefined) {
      lines.push(`    ${node.name}: ${node.error ?? node.status}`);
      continue;
    }
    lines.push(`    ${node.name.padEnd(10)} on-chain ${node.chainBalanceSat} sat, in channels ${node.channelBalanceSat} sat`);
    for (const channel of node.channels ?? []) {
      lines.push(`      ↔ ${channel.partner}: ${channel.localSat}/${channel.capacitySat} sat local${channel.active ? '' : ' (inactive)'}`);
    }
  }
  if (lab.phases.length > 0) lines.push(`  bring-up: ${lab.phases.map((phase) => `${phase.name} ${seconds(phase.ms)}`).join(', ')}`);
  return lines.join('\n');
}
