// What the lab does on request (the job queues, the API, the bring-up): mining, funding, channels
// and payments, through each node kind's lab-side face.
import { address as addressLib, networks } from 'bitcoinjs-lib';
import { conflict, invalid } from '../../../lib/errors.js';
import { waitFor } from '../../../lib/wait.js';
import { isLightning, type ChannelView, type LabLightningNode, type PaymentView } from '../nodes/node.js';
import { nodeNameOf } from './node-names.js';
import { assertCanSend, explainPayment } from './payment-trouble.js';
import type { LabSession } from './session.js';

export function assertRegtestAddress(address: string): void {
  try {
    addressLib.toOutputScript(address, networks.regtest);
  } catch {
    throw invalid(
      'INVALID_ADDRESS',
      `"${address}" is not a regtest address (expected bcrt1... or a regtest base58 address)`,
    );
  }
}

/** Mines `blocks` blocks, to `address` when given, else to the lab wallet. */
export async function mineBlocks(
  session: LabSession,
  blocks: number,
  address?: string,
): Promise<{ hashes: string[]; height: number }> {
  if (address !== undefined) assertRegtestAddress(address);
  return session.mine(blocks, address);
}

/** A node whose service is not ready cannot take part: say so, and how to bring it back. */
export function requireReady(session: LabSession, name: string): void {
  const service = session.lab.services[name];
  if (!service)
    throw invalid(
      'NO_SUCH_NODE',
      `lab ${session.lab.name} has no node "${name}" (nodes: ${session.lab.spec.nodes.map((node) => node.name).join(', ')})`,
    );
  if (service.status === 'ready') return;
  const hint =
    service.status === 'stopped'
      ? `start it with \`reglab start ${name}\``
      : service.status === 'restarting'
        ? 'the supervisor is restarting it; try again in a moment'
        : `see \`reglab logs ${name}\``;
  throw conflict('SERVICE_NOT_READY', `${name} is ${service.status}: ${hint}`);
}

function lightningNode(session: LabSession, name: string): LabLightningNode {
  requireReady(session, name);
  return session.lightning(name);
}

export interface FundRequest {
  /** A node of the lab, or any regtest address. */
  node?: string;
  address?: string;
  amountSat: bigint;
  /** Mine one block to confirm (default true). */
  confirm?: boolean;
}

export async function fund(
  session: LabSession,
  request: FundRequest,
): Promise<{ txid: string; address: string; height?: number }> {
  if (request.node) requireReady(session, request.node);
  const address = request.address ?? (request.node ? await session.node(request.node).newAddress() : undefined);
  if (!address) throw invalid('FUND_TARGET_MISSING', 'fund needs a node or an address');
  assertRegtestAddress(address);
  const txid = await session.labWallet.send([{ address, amountSat: request.amountSat }]);
  if (request.confirm === false) return { txid, address };
  const { height } = await mineBlocks(session, 1);
  return { txid, address, height };
}

export { nodeNameOf };

export async function nodePubkey(session: LabSession, node: string): Promise<string> {
  return (await lightningNode(session, node).info()).pubkey;
}

export interface ChannelRequest {
  from: string;
  to: string;
  capacitySat: number;
  pushSat?: number;
  private?: boolean;
}

/** Connects the two nodes and opens the channel; returns the funding outpoint (unconfirmed). */
export async function openChannelBetween(
  session: LabSession,
  request: ChannelRequest,
): Promise<{ fundingTxid: string; fundingVout: number }> {
  if (request.from === request.to) throw invalid('SAME_NODE', 'a channel needs two different nodes');
  const opener = lightningNode(session, request.from);
  const partnerPubkey = await nodePubkey(session, request.to);
  await connectPeers(session, request.from, request.to);
  return opener.openChannel({
    partnerPubkey,
    partnerAddress: session.peerAddress(request.from, request.to),
    capacitySat: request.capacitySat,
    pushSat: request.pushSat ?? 0,
    private: request.private,
  });
}

export async function connectPeers(session: LabSession, from: string, to: string): Promise<void> {
  await lightningNode(session, from).connect(await nodePubkey(session, to), session.peerAddress(from, to));
}

/**
 * Connects two nodes again after a disconnect (`reglab connect`): the fault is over, so the lab's
 * Lightning nodes forget the payments that failed over it, which lnd would otherwise avoid routing
 * through for about an hour ("no route" once the link is back).
 */
export async function reconnectPeers(session: LabSession, from: string, to: string): Promise<void> {
  await connectPeers(session, from, to);
  await Promise.all(
    session.lab.spec.nodes
      .filter((node) => session.lab.services[node.name]?.status === 'ready')
      .map((node) => session.node(node.name))
      .filter(isLightning)
      .map((node) => node.forgetPaymentFailures()),
  );
}

/**
 * Disconnects the two nodes from both sides: a node with a channel keeps its peer as one to
 * reconnect to, so each forgets the other (until `connectPeers`). The second side may already
 * have seen the connection go.
 */
export async function disconnectPeers(session: LabSession, from: string, to: string): Promise<void> {
  await lightningNode(session, from).disconnect(await nodePubkey(session, to));
  await lightningNode(session, to)
    .disconnect(await nodePubkey(session, from))
    .catch(() => undefined);
}

/** Waits until `node` can route over the channel funded by `fundingTxid` (both policies known). */
export async function waitChannelRoutable(
  session: LabSession,
  node: string,
  fundingTxid: string,
  timeoutMs = 60_000,
): Promise<void> {
  const lightning = session.lightning(node);
  await waitFor(() => lightning.canRouteOver(fundingTxid), {
    timeoutMs,
    intervalMs: 250,
    what: `node ${node} to be able to route over the channel of ${fundingTxid}`,
  });
}

/**
 * The lab's Lightning nodes that hear of a channel between `nodes` by gossip: those nodes and every
 * ready lab node linked to them by active channels, transitively (a node hears of new channels
 * from its peers; a node of another group of channels never does).
 */
async function gossipReach(session: LabSession, nodes: string[]): Promise<string[]> {
  const reached = new Set(nodes);
  const queue = [...nodes];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const channel of await session.lightning(node).channels()) {
      const partner = channel.active ? nodeNameOf(session, channel.partnerPubkey) : undefined;
      if (partner === undefined || reached.has(partner) || session.lab.services[partner]?.status !== 'ready') continue;
      reached.add(partner);
      queue.push(partner);
    }
  }
  return [...reached];
}

/**
 * Waits until every lab node gossip reaches can route over the new public channel between `from`
 * and `to`, as the bring-up does for lab.yaml's channels. A channel that is closed right after it
 * opened must not still be on its way to a node: lnd adds an announcement it was validating when
 * the closing block came after that block, never prunes the channel, and routes over it (a bob ->
 * carol hop that bob answers with UnknownNextPeer, and lnd then avoids bob -> carol altogether).
 */
export async function waitChannelKnownToLab(
  session: LabSession,
  from: string,
  to: string,
  fundingTxid: string,
  timeoutMs = 60_000,
): Promise<void> {
  const nodes = await gossipReach(session, [from, to]);
  await Promise.all(nodes.map((node) => waitChannelRoutable(session, node, fundingTxid, timeoutMs)));
}

/** Waits until `node` sees an active channel with `partner` (the one of `fundingTxid` when given). */
export async function waitChannelActive(
  session: LabSession,
  node: string,
  partner: string,
  options: { fundingTxid?: string; timeoutMs?: number } = {},
): Promise<void> {
  const partnerKey = await nodePubkey(session, partner);
  const lightning = session.lightning(node);
  await waitFor(
    async () =>
      (await lightning.channels()).some(
        (channel) =>
          channel.active &&
          channel.partnerPubkey === partnerKey &&
          (options.fundingTxid === undefined || channel.fundingTxid === options.fundingTxid),
      ),
    {
      timeoutMs: options.timeoutMs ?? 60_000,
      intervalMs: 150,
      what: `an active channel ${node} -> ${partner}`,
    },
  );
}

export interface PaymentResult {
  paymentHash: string;
  amountSat: number;
  feeSat: number;
  feeMsat: string;
  /** When the payer tells (an LDK node does not). */
  hops?: number;
  preimage?: string;
}

const result = (payment: PaymentView): PaymentResult => ({
  paymentHash: payment.paymentHash,
  amountSat: Number(payment.amountMsat / 1000n),
  feeSat: Number(payment.feeMsat / 1000n),
  feeMsat: payment.feeMsat.toString(),
  hops: payment.hops,
  preimage: payment.preimage,
});

export interface PaymentRequest {
  from: string;
  to: string;
  amountSat: number;
  memo?: string;
}

/**
 * An invoice on `to`, paid by `from` over the lab's channels. A retry passes the invoice of the
 * first attempt, so a payment that went through is found instead of being made twice.
 */
export async function payBetween(
  session: LabSession,
  request: PaymentRequest,
  retry: { invoice?: string; onInvoice?: (invoice: string) => Promise<void> } = {},
): Promise<PaymentResult> {
  if (request.from === request.to) throw invalid('SAME_NODE', 'a payment needs two different nodes');
  let invoice = retry.invoice;
  if (!invoice) {
    const payee = lightningNode(session, request.to);
    invoice = (
      await payee.createInvoice({
        amountMsat: BigInt(request.amountSat) * 1000n,
        memo: request.memo ?? `reglab ${request.from} -> ${request.to}`,
      })
    ).paymentRequest;
    await retry.onInvoice?.(invoice);
  }
  return payInvoice(session, request.from, invoice);
}

/**
 * Pays any BOLT11 invoice from a lab node. An invoice this node already paid is not paid again, and
 * one it is still paying (a job run again after its control plane was killed) is followed to its end.
 * A payment the payer cannot make is refused before it is sent, and one that fails says what in the
 * lab stands in its way (payment-trouble.ts).
 */
export async function payInvoice(session: LabSession, from: string, invoice: string): Promise<PaymentResult> {
  const payer = lightningNode(session, from);
  const earlier = await payer.paymentOutcome(await payer.paymentHashOf(invoice));
  if (earlier) return result(earlier);
  await assertCanSend(session, from);
  return result(await explainPayment(session, () => payer.pay(invoice)));
}

export async function keysendBetween(
  session: LabSession,
  request: { from: string; to: string; amountSat: number },
): Promise<PaymentResult> {
  if (request.from === request.to) throw invalid('SAME_NODE', 'a payment needs two different nodes');
  const payer = lightningNode(session, request.from);
  const pubkey = await nodePubkey(session, request.to);
  await assertCanSend(session, request.from);
  return result(await explainPayment(session, () => payer.keysend(pubkey, BigInt(request.amountSat) * 1000n)));
}

export interface CloseRequest {
  node: string;
  /** The other node of the channel (when it has one channel with it), or the channel's id. */
  partner?: string;
  channelId?: string;
  force: boolean;
}

/** The channel a close request names, or an error listing the channels to choose from. */
export async function channelToClose(session: LabSession, request: CloseRequest): Promise<ChannelView> {
  const channels = await lightningNode(session, request.node).channels();
  const partnerKey = request.partner ? await nodePubkey(session, request.partner) : undefined;
  const withPartner = channels.filter((channel) => partnerKey === undefined || channel.partnerPubkey === partnerKey);
  const matching = withPartner.filter((channel) => request.channelId === undefined || channel.id === request.channelId);
  const partnerOf = (channel: ChannelView) => nodeNameOf(session, channel.partnerPubkey) ?? channel.partnerPubkey;
  if (matching.length === 1) return matching[0];
  if (matching.length > 1)
    throw invalid(
      'AMBIGUOUS_CHANNEL',
      `${request.node} has ${matching.length} channels with ${request.partner}: name one with channel_id (reglab channel close --channel-id): ${matching.map((channel) => channel.id).join(', ')}`,
    );
  const asked = [
    request.channelId === undefined ? 'no channel' : `no channel ${request.channelId}`,
    request.partner === undefined ? '' : ` with ${request.partner}`,
  ].join('');
  const choices =
    withPartner.length > 0 && request.partner !== undefined
      ? `its channels with ${request.partner}: ${withPartner.map((channel) => channel.id).join(', ')}`
      : `its channels: ${channels.map((channel) => `${channel.id} (with ${partnerOf(channel)})`).join(', ') || 'none'}`;
  throw invalid('NO_SUCH_CHANNEL', `${request.node} has ${asked} (${choices})`);
}

export async function closeChannel(
  session: LabSession,
  node: string,
  channel: ChannelView,
  force: boolean,
): Promise<{ closingTxid?: string }> {
  return lightningNode(session, node).closeChannel(channel, force);
}
