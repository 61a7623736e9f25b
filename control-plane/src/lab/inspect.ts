import { getChainBalance, getChannelBalance, getChannels, getWalletInfo } from 'ln-service';
import { describeError } from '../../../lib/errors.js';
import type { LabSession } from './session.js';
import type { LabState } from './state.js';

export interface NodeView {
  name: string;
  kind: string;
  pubkey?: string;
  chainBalanceSat?: number;
  channelBalanceSat?: number;
  channels?: { partner: string; capacitySat: number; localSat: number; remoteSat: number; active: boolean }[];
  error?: string;
}

/** What `reglab status` and GET /labs/{name} show: the stored state plus live figures from the nodes. */
export async function inspectLab(lab: LabState, session?: LabSession) {
  const services = Object.values(lab.services).map(({ name, kind, status, hostPorts, info, error }) => ({ name, kind, status, ports: hostPorts, info, error }));
  const base = { name: lab.name, status: lab.status, runtime: lab.runtime, createdAt: lab.createdAt, error: lab.error, dir: lab.dir, phases: lab.phases, services };
  if (!session) return { ...base, nodes: lab.spec.nodes.map((node) => ({ name: node.name, kind: node.kind, pubkey: lab.services[node.name]?.info.pubkey })) };
  const [height, wallet] = await Promise.all([session.chain.getBlockCount(), session.labWallet.balanceSat()]);
  const pubkeyNames = new Map(lab.spec.nodes.map((node) => [lab.services[node.name]?.info.pubkey, node.name]));
  const nodes = await Promise.all(lab.spec.nodes.map((node) => inspectNode(session, node.name, node.kind, pubkeyNames)));
  return {
    ...base,
    chain: { kind: lab.spec.chain.kind, height },
    labWallet: { address: session.labWallet.address, spendableSat: Number(wallet.spendable), immatureSat: Number(wallet.immature) },
    nodes,
  };
}

async function inspectNode(session: LabSession, name: string, kind: string, pubkeyNames: Map<string | undefined, string>): Promise<NodeView> {
  if (kind !== 'lnd') return { name, kind };
  try {
    const lnd = session.lnd(name);
    const [info, chain, offchain, { channels }] = await Promise.all([getWalletInfo({ lnd }), getChainBalance({ lnd }), getChannelBalance({ lnd }), getChannels({ lnd })]);
    return {
      name,
      kind,
      pubkey: info.public_key,
      chainBalanceSat: chain.chain_balance,
      channelBalanceSat: offchain.channel_balance,
      channels: channels.map((channel) => ({
        partner: pubkeyNames.get(channel.partner_public_key) ?? channel.partner_public_key,
        capacitySat: channel.capacity,
        localSat: channel.local_balance,
        remoteSat: channel.remote_balance,
        active: channel.is_active,
      })),
    };
  } catch (error) {
    return { name, kind, error: describeError(error) };
  }
}
