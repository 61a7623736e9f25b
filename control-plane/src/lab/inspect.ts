import { describeError } from '../../../lib/errors.js';
import { engineReachOf } from '../runtimes/select.js';
import { holdsAssets, isLightning, type ChannelView, type PendingClose } from '../nodes/node.js';
import { holdingsOf, type HoldingView } from './assets.js';
import type { LabSession } from './session.js';
import type { LabState } from './state.js';

/** A channel with its partner named as the lab names it. */
export interface ChannelSummary extends ChannelView {
  partner: string;
}

export interface NodeView {
  name: string;
  kind: string;
  status?: string;
  pubkey?: string;
  chainBalanceSat?: number;
  unconfirmedBalanceSat?: number;
  channelBalanceSat?: number;
  channels?: ChannelSummary[];
  pendingCloses?: PendingClose[];
  /** RGB assets held by an rgb or rln node. */
  assets?: HoldingView[];
  error?: string;
}

/** The stored state of each service, as status shows it. */
export function serviceViews(lab: LabState) {
  return Object.values(lab.services).map(
    ({ name, kind, status, since, hostPorts, info, error, restarts, restartPolicy }) => ({
      name,
      kind,
      status,
      since,
      ports: hostPorts,
      info,
      error,
      restarts,
      restartPolicy,
    }),
  );
}

/** What `reglab status` and GET /labs/{name} show: the stored state plus live figures from the nodes. */
export async function inspectLab(lab: LabState, session?: LabSession) {
  const engine = await engineReachOf(lab.spec);
  const base = {
    name: lab.name,
    status: lab.status,
    runtime: lab.runtime,
    createdAt: lab.createdAt,
    error: lab.error,
    dir: lab.dir,
    ...(engine ? { engine } : {}),
    phases: lab.phases,
    services: serviceViews(lab),
  };
  if (!session)
    return {
      ...base,
      nodes: lab.spec.nodes.map((node) => ({
        name: node.name,
        kind: node.kind,
        status: lab.services[node.name]?.status,
        pubkey: lab.services[node.name]?.info.pubkey,
      })),
    };
  const [height, wallet] = await Promise.all([
    session.chain.getBlockCount().catch(() => undefined),
    session.labWallet.balanceSat().catch(() => undefined),
  ]);
  const names = new Map(lab.spec.nodes.map((node) => [lab.services[node.name]?.info.pubkey, node.name]));
  const nodes = await Promise.all(lab.spec.nodes.map((node) => inspectNode(session, node.name, names)));
  return {
    ...base,
    chain: { kind: lab.spec.chain.kind, height },
    labWallet: {
      address: session.labWallet.address,
      spendableSat: wallet === undefined ? undefined : Number(wallet.spendable),
      immatureSat: wallet === undefined ? undefined : Number(wallet.immature),
    },
    nodes,
  };
}

/** One node's live figures; a node that is not ready shows its status instead. */
export async function inspectNode(
  session: LabSession,
  name: string,
  names: Map<string | undefined, string>,
): Promise<NodeView> {
  const service = session.lab.services[name];
  const view: NodeView = { name, kind: service.kind, status: service.status, pubkey: service.info.pubkey };
  if (service.status !== 'ready') return view;
  try {
    const node = session.node(name);
    const lightning = isLightning(node) ? node : undefined;
    // all asked at once: `reglab up` prints this view as the last thing it waits for
    const [balance, assets, live] = await Promise.all([
      node.onchainBalance(),
      holdsAssets(node) ? holdingsOf(session, node) : undefined,
      lightning &&
        Promise.all([lightning.info(), lightning.channelBalanceSat(), lightning.channels(), lightning.pendingCloses()]),
    ]);
    Object.assign(view, { chainBalanceSat: balance.confirmedSat, unconfirmedBalanceSat: balance.unconfirmedSat });
    if (assets) view.assets = assets;
    if (!live) return view;
    const [info, channelBalanceSat, channels, pendingCloses] = live;
    return {
      ...view,
      pubkey: info.pubkey,
      channelBalanceSat,
      channels: channels.map((channel) => ({
        ...channel,
        partner: names.get(channel.partnerPubkey) ?? channel.partnerPubkey,
      })),
      pendingCloses,
    };
  } catch (error) {
    return { ...view, error: describeError(error) };
  }
}
