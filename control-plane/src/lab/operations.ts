import { addPeer, createChainAddress, createInvoice, decodePaymentRequest, getPayment, getChainBalance, getChannels, getNetworkGraph, getWalletInfo, openChannel, pay } from 'ln-service';
import { address as addressLib, networks } from 'bitcoinjs-lib';
import { BtcdDriver } from '../../../lib/chain/btcd.js';
import { waitFor } from '../../../lib/wait.js';
import type { LabSession } from './session.js';

/** Mines `blocks` blocks, to `address` when given, else to the lab wallet. Returns the new height. */
export async function mineBlocks(session: LabSession, blocks: number, address?: string): Promise<{ hashes: string[]; height: number }> {
  if (address !== undefined) assertRegtestAddress(address);
  const chain = session.chain;
  const hashes = address === undefined && chain instanceof BtcdDriver
    ? await chain.generate(blocks)
    : await chain.mine(blocks, address ?? session.labWallet.address);
  return { hashes, height: await chain.getBlockCount() };
}

export function assertRegtestAddress(address: string): void {
  try {
    addressLib.toOutputScript(address, networks.regtest);
  } catch {
    throw new UserInputError(`"${address}" is not a regtest address (expected bcrt1... or a regtest base58 address)`);
  }
}

/** An error caused by what the user asked, as opposed to the lab failing. */
export class UserInputError extends Error {
  readonly userInput = true;
}

export interface FundRequest {
  /** A node of the lab, or any regtest address. */
  node?: string;
  address?: string;
  amountSat: bigint;
  /** Mine one block to confirm (default true). */
  confirm?: boolean;
}

export async function fund(session: LabSession, request: FundRequest): Promise<{ txid: string; address: string; height?: number }> {
  const address = request.address ?? (request.node ? await newNodeAddress(session, request.node) : undefined);
  if (!address) throw new UserInputError('fund needs a node or an address');
  assertRegtestAddress(address);
  const txid = await session.labWallet.send([{ address, amountSat: request.amountSat }]);
  if (request.confirm === false) return { txid, address };
  const { height } = await mineBlocks(session, 1);
  return { txid, address, height };
}

export async function newNodeAddress(session: LabSession, node: string): Promise<string> {
  return (await createChainAddress({ lnd: session.lnd(node), format: 'p2wpkh' })).address;
}

export async function nodePubkey(session: LabSession, node: string): Promise<string> {
  return (await getWalletInfo({ lnd: session.lnd(node) })).public_key;
}

/** Waits until an lnd node has caught up with the chain tip (and, optionally, has a confirmed balance). */
export async function waitNodeSynced(session: LabSession, node: string, options: { minConfirmedSat?: number; timeoutMs?: number } = {}): Promise<void> {
  const lnd = session.lnd(node);
  await waitFor(async () => {
    const [info, tip] = await Promise.all([getWalletInfo({ lnd }), session.chain.getBlockCount()]);
    if (!info.is_synced_to_chain || info.current_block_height < tip) return false;
    if (options.minConfirmedSat === undefined) return true;
    return (await getChainBalance({ lnd })).chain_balance >= options.minConfirmedSat;
  }, { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 100, what: `lnd node ${node} to sync to the chain tip` });
}

export interface ChannelRequest {
  from: string;
  to: string;
  capacitySat: number;
  pushSat?: number;
}

/** Connects the two nodes and opens the channel; returns the funding outpoint (unconfirmed). */
export async function openChannelBetween(session: LabSession, request: ChannelRequest): Promise<{ fundingTxid: string; fundingVout: number }> {
  if (request.from === request.to) throw new UserInputError('a channel needs two different nodes');
  const partnerKey = await nodePubkey(session, request.to);
  await connectPeers(session, request.from, request.to);
  const opened = await openChannel({
    lnd: session.lnd(request.from),
    partner_public_key: partnerKey,
    partner_socket: session.peerAddress(request.from, request.to),
    local_tokens: request.capacitySat,
    give_tokens: request.pushSat ?? 0,
  });
  return { fundingTxid: opened.transaction_id, fundingVout: opened.transaction_vout };
}

export async function connectPeers(session: LabSession, from: string, to: string): Promise<void> {
  const partnerKey = await nodePubkey(session, to);
  await addPeer({ lnd: session.lnd(from), public_key: partnerKey, socket: session.peerAddress(from, to), retry_count: 5, retry_delay: 200 });
}

const routable = (channel: { policies: { cltv_delta?: number }[] }) => channel.policies.length === 2 && channel.policies.every((policy) => policy.cltv_delta !== undefined);

/** Waits until `node` can route over the channel funded by `fundingTxid` (both policies known). */
export async function waitChannelRoutable(session: LabSession, node: string, fundingTxid: string, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => (await getNetworkGraph({ lnd: session.lnd(node) })).channels.some((channel) => channel.transaction_id === fundingTxid && routable(channel)), {
    timeoutMs,
    intervalMs: 250,
    what: `node ${node} to be able to route over the channel of ${fundingTxid}`,
  });
}

/** Waits until `node` sees an active channel with `partner` (the one of `fundingTxid` when given). */
export async function waitChannelActive(session: LabSession, node: string, partner: string, options: { fundingTxid?: string; timeoutMs?: number } = {}): Promise<void> {
  const partnerKey = await nodePubkey(session, partner);
  await waitFor(async () => {
    const { channels } = await getChannels({ lnd: session.lnd(node), is_active: true });
    return channels.some((channel) => channel.partner_public_key === partnerKey && (options.fundingTxid === undefined || channel.transaction_id === options.fundingTxid));
  }, { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 150, what: `an active channel ${node} -> ${partner}` });
}

/**
 * Waits until `node`'s graph holds `count` channels with both directions' routing policies known,
 * which is when it can route a payment over them.
 */
export async function waitGraphChannels(session: LabSession, node: string, count: number, timeoutMs = 60_000): Promise<void> {
  await waitFor(async () => (await getNetworkGraph({ lnd: session.lnd(node) })).channels.filter(routable).length >= count, {
    timeoutMs,
    intervalMs: 250,
    what: `node ${node} to learn ${count} channels from gossip`,
  });
}

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
export async function payBetween(session: LabSession, request: PaymentRequest, retry: { invoice?: string; onInvoice?: (invoice: string) => Promise<void> } = {}) {
  if (request.from === request.to) throw new UserInputError('a payment needs two different nodes');
  let invoice = retry.invoice;
  if (!invoice) {
    invoice = (await createInvoice({ lnd: session.lnd(request.to), tokens: request.amountSat, description: request.memo ?? `reglab ${request.from} -> ${request.to}` })).request;
    await retry.onInvoice?.(invoice);
  }
  const { id } = await decodePaymentRequest({ lnd: session.lnd(request.from), request: invoice });
  const earlier = await getPayment({ lnd: session.lnd(request.from), id }).catch(() => undefined);
  const paid = earlier?.payment ?? (await pay({ lnd: session.lnd(request.from), request: invoice }));
  return { paymentHash: id, amountSat: paid.tokens - paid.fee, feeSat: paid.fee, hops: paid.hops.length, preimage: paid.secret };
}
