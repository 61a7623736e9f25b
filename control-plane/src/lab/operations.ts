// What the lab does on request (the job queues, the API, the bring-up): mining, funding, channels
// and payments, through each node kind's lab-side face.
import { createHash, randomBytes } from 'node:crypto';
import { AddressError, isPayableByLabWallets, parseAddress, type ParsedAddress } from '../../../lib/bitcoin/address.js';
import { conflict, invalid } from '../../../lib/errors.js';
import type { Channel, Payment, PaymentLookup, PaymentOutcome } from '../../../lib/lightning/client.js';
import { waitFor } from '../../../lib/wait.js';
import { isLightning, type LabLightning } from '../nodes/node.js';
import { nodeNameOf } from './node-names.js';
import { openRetryingPeerLoss } from './peer-loss.js';
import {
  PAYMENT_ANSWER_GRACE_SECONDS,
  PAYMENT_TIMEOUT_SECONDS,
  paymentFailed,
  paymentInFlight,
} from './payment-errors.js';
import { assertCanSend, explainPayment } from './payment-trouble.js';
import type { LabSession } from './session.js';
import { ownValue } from '../util/own.js';

/** A regtest address the lab's wallets can pay, as the node is given it (no spaces around it). */
export function assertRegtestAddress(address: string): void {
  const parsed = address === address.trim() ? regtestAddress(address) : undefined;
  if (!parsed)
    throw invalid(
      'INVALID_ADDRESS',
      `"${address}" is not a regtest address (expected bcrt1... or a regtest base58 address)`,
    );
  if (!isPayableByLabWallets(parsed))
    throw invalid(
      'INVALID_ADDRESS',
      `"${address}" is a witness address the lab's wallets cannot pay (a version other than 0, or a version 1 program that is not taproot's); use a bcrt1q..., bcrt1p... or regtest base58 address`,
    );
}

function regtestAddress(address: string): ParsedAddress | undefined {
  try {
    return parseAddress(address, 'regtest');
  } catch (error) {
    if (error instanceof AddressError) return undefined;
    throw error;
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
  const service = ownValue(session.lab.services, name);
  if (!service)
    throw invalid(
      'NO_SUCH_NODE',
      `lab ${session.lab.name} has no node "${name}" (nodes: ${session.lab.spec.nodes.map((node) => node.name).join(', ')})`,
    );
  if (service.status === 'ready') return;
  if (service.status === 'waiting' && service.error)
    throw conflict('SERVICE_NOT_READY', `${name} is waiting: ${service.error.split('\n')[0]}`);
  const hint =
    service.status === 'stopped'
      ? `start it with \`reglab start ${name}\``
      : service.status === 'restarting'
        ? 'the supervisor is restarting it; try again in a moment'
        : `see \`reglab logs ${name}\``;
  throw conflict('SERVICE_NOT_READY', `${name} is ${service.status}: ${hint}`);
}

function lightningNode(session: LabSession, name: string): LabLightning {
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
  // a connection lost before the open began funded nothing: the open is tried again over a new one
  return openRetryingPeerLoss(async () => {
    await connectPeers(session, request.from, request.to);
    return opener.channels.open({
      partnerPubkey,
      partnerAddress: session.peerAddress(request.from, request.to),
      capacitySat: request.capacitySat,
      pushSat: request.pushSat ?? 0,
      private: request.private,
    });
  });
}

export async function connectPeers(session: LabSession, from: string, to: string): Promise<void> {
  await lightningNode(session, from).channels.connectPeer(await nodePubkey(session, to), session.peerAddress(from, to));
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
      .map((node) => node.lightning.channels.forgetPaymentFailures()),
  );
}

/**
 * Disconnects the two nodes from both sides: a node with a channel keeps its peer as one to
 * reconnect to, so each forgets the other (until `connectPeers`). The second side may already
 * have seen the connection go; two nodes already apart are left so, as asked.
 */
export async function disconnectPeers(session: LabSession, from: string, to: string): Promise<void> {
  const first = lightningNode(session, from).channels;
  const partner = await nodePubkey(session, to);
  await first.disconnectPeer(partner).catch(async (error: unknown) => {
    if ((await first.connectedPeers()).includes(partner)) throw error;
  });
  await lightningNode(session, to)
    .channels.disconnectPeer(await nodePubkey(session, from))
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
  await waitFor(() => lightning.channels.canRouteOver(fundingTxid), {
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
    for (const channel of await session.lightning(node).channels.list()) {
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
      (await lightning.channels.list()).some(
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

/**
 * How long a payment in flight is followed to its end before the wait gives up: one the payer made
 * earlier (a job taken back after a restart), or whose answer the payer's connection lost.
 */
const PAYMENT_END_WAIT_MS = 10 * 60_000;

/** A payment followed to its end, while it is in flight. */
function endOf(name: string, node: LabLightning, payment: PaymentLookup): Promise<PaymentLookup> {
  if (payment.status !== 'pending') return Promise.resolve(payment);
  return waitFor(
    async () => {
      const now = await node.payment(payment.paymentHash);
      return now.status === 'pending' ? undefined : now;
    },
    {
      timeoutMs: PAYMENT_END_WAIT_MS,
      intervalMs: 500,
      what: `${name}'s payment ${payment.paymentHash} to succeed or fail`,
    },
  );
}

/** The payment once it succeeded; the node's reason when it failed. */
async function paid(name: string, node: LabLightning, payment: PaymentLookup): Promise<PaymentResult> {
  const final = await endOf(name, node, payment);
  if (final.status === 'succeeded') return result(final);
  throw paymentFailed(name, final.status === 'failed' ? final.reason : 'the node does not know the payment');
}

/**
 * The node's answer to a payment it was just given, waited for its payment timeout and a little
 * more: a payment an unanswering node holds on its way is reported in flight rather than waited for.
 */
async function sent(
  name: string,
  node: LabLightning,
  paying: Promise<PaymentOutcome>,
  paymentHash: string | undefined,
): Promise<PaymentResult> {
  paying.catch(() => undefined); // it may end after the lab stopped waiting
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(paymentInFlight(name, paymentHash)),
      (PAYMENT_TIMEOUT_SECONDS + PAYMENT_ANSWER_GRACE_SECONDS) * 1000,
    );
  });
  try {
    return await paid(name, node, await Promise.race([paying, late]));
  } finally {
    clearTimeout(timer);
  }
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

const result = (payment: Payment): PaymentResult => ({
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
        description: request.memo ?? `reglab ${request.from} -> ${request.to}`,
      })
    ).bolt11;
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
  const { paymentHash } = await payer.decodeInvoice(invoice);
  const earlier = await endOf(from, payer, await payer.payment(paymentHash));
  if (earlier.status === 'succeeded') return result(earlier);
  await assertCanSend(session, from);
  return explainPayment(session, () =>
    sent(from, payer, payer.pay({ bolt11: invoice, timeoutSec: PAYMENT_TIMEOUT_SECONDS }), paymentHash),
  );
}

export async function keysendBetween(
  session: LabSession,
  request: { from: string; to: string; amountSat: number },
): Promise<PaymentResult> {
  if (request.from === request.to) throw invalid('SAME_NODE', 'a payment needs two different nodes');
  const payer = lightningNode(session, request.from);
  const pubkey = await nodePubkey(session, request.to);
  await assertCanSend(session, request.from);
  // the lab's own preimage, where the node takes one, so a payment in flight can be named
  const preimage = payer.capabilities.keysendPreimage ? randomBytes(32).toString('hex') : undefined;
  const paymentHash = preimage && createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex');
  return explainPayment(session, () =>
    sent(
      request.from,
      payer,
      payer.keysend({
        pubkey,
        amountMsat: BigInt(request.amountSat) * 1000n,
        preimage,
        timeoutSec: PAYMENT_TIMEOUT_SECONDS,
      }),
      paymentHash,
    ),
  );
}

export interface CloseRequest {
  node: string;
  /** The other node of the channel (when it has one channel with it), or the channel's id. */
  partner?: string;
  channelId?: string;
  force: boolean;
}

/** The channel a close request names, or an error listing the channels to choose from. */
export async function channelToClose(session: LabSession, request: CloseRequest): Promise<Channel> {
  const channels = await lightningNode(session, request.node).channels.list();
  const partnerKey = request.partner ? await nodePubkey(session, request.partner) : undefined;
  const withPartner = channels.filter((channel) => partnerKey === undefined || channel.partnerPubkey === partnerKey);
  const matching = withPartner.filter((channel) => request.channelId === undefined || channel.id === request.channelId);
  const partnerOf = (channel: Channel) => nodeNameOf(session, channel.partnerPubkey) ?? channel.partnerPubkey;
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
  channel: Channel,
  force: boolean,
): Promise<{ closingTxid?: string }> {
  return lightningNode(session, node).channels.close(channel, force);
}
