import { describeError } from '../../../lib/errors.js';
import { withTimeout } from '../../../lib/wait.js';
import { networkSummary } from '../network/model.js';
import { engineReachOf } from '../runtimes/select.js';
import type { Channel, PendingClose } from '../../../lib/lightning/client.js';
import { holdsAssets, isLightning } from '../nodes/node.js';
import { holdingsOf, type HoldingView } from './assets.js';
import type { LabSession } from './session.js';
import type { LabState } from './state.js';

/**
 * How long status waits for each node's figures, and the chain's, unless the lab says otherwise
 * (status.answer_timeout_seconds): a node that answers does so in milliseconds, while a frozen one,
 * or an lnd whose chain node is down, held status for minutes. Each is asked on its own, so one that
 * does not answer leaves the others' figures in the view.
 */
export const DEFAULT_ANSWER_TIMEOUT_SECONDS = 0.75;

/**
 * How long GET /labs/{name}/nodes/{node} waits for the one node it was asked for (or the lab's answer
 * time-out, when longer): a script reading a node's figures on a busy machine wants them, not a view
 * without them, and a frozen node still cannot hold the request for long.
 */
export const ONE_NODE_ANSWER_TIMEOUT_SECONDS = 10;

/** The lab's answer time-out, seconds (status.answer_timeout_seconds). */
const answerSeconds = (lab: LabState) =>
  // a lab recorded before the setting was has none
  lab.spec.status?.answer_timeout_seconds ?? DEFAULT_ANSWER_TIMEOUT_SECONDS;

/** What `work` answers within `seconds`, or an error saying it does not answer. */
const promptly = <T>(seconds: number, work: Promise<T>) =>
  withTimeout(work, seconds * 1000, `not answering (no answer within ${seconds} s)`);

/** A channel with its partner named as the lab names it. */
export interface ChannelSummary extends Channel {
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
    ...(lab.network ? { network: networkSummary(lab.network) } : {}),
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
  const seconds = answerSeconds(lab);
  const [height, wallet] = await Promise.all([
    promptly(seconds, session.chain.getBlockCount()).catch((error: unknown) => ({ error: describeError(error) })),
    promptly(seconds, session.labWallet.balanceSat()).catch((error: unknown) => ({ error: describeError(error) })),
  ]);
  const names = new Map(lab.spec.nodes.map((node) => [lab.services[node.name]?.info.pubkey, node.name]));
  const nodes = await Promise.all(lab.spec.nodes.map((node) => inspectNode(session, node.name, names, seconds)));
  return {
    ...base,
    chain: { kind: lab.spec.chain.kind, ...(typeof height === 'number' ? { height } : height) },
    labWallet: {
      address: session.labWallet.address,
      ...('error' in wallet
        ? wallet
        : { spendableSat: Number(wallet.spendable), immatureSat: Number(wallet.immature) }),
    },
    nodes,
  };
}

/**
 * One node's live figures, waited for `seconds` (the lab's answer time-out, or longer for the node
 * asked for alone); a node that is not ready shows its status instead, one that does not answer says so.
 */
export async function inspectNode(
  session: LabSession,
  name: string,
  names: Map<string | undefined, string>,
  seconds = Math.max(answerSeconds(session.lab), ONE_NODE_ANSWER_TIMEOUT_SECONDS),
): Promise<NodeView> {
  const service = session.lab.services[name];
  const view: NodeView = { name, kind: service.kind, status: service.status, pubkey: service.info.pubkey };
  if (service.status !== 'ready') return view;
  try {
    const node = session.node(name);
    const lightning = isLightning(node) ? node.lightning : undefined;
    // all asked at once: `reglab up` prints this view as the last thing it waits for
    const [balance, assets, live] = await promptly(
      seconds,
      Promise.all([
        node.onchainBalance(),
        holdsAssets(node) ? holdingsOf(session, node) : undefined,
        lightning &&
          Promise.all([
            lightning.info(),
            lightning.channelBalanceMsat(),
            lightning.channels.list(),
            lightning.channels.pendingCloses(),
          ]),
      ]),
    );
    Object.assign(view, { chainBalanceSat: balance.confirmedSat, unconfirmedBalanceSat: balance.unconfirmedSat });
    if (assets) view.assets = assets;
    if (!live) return view;
    const [info, channelBalanceMsat, channels, pendingCloses] = live;
    return {
      ...view,
      pubkey: info.pubkey,
      channelBalanceSat: Number(channelBalanceMsat / 1000n),
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
