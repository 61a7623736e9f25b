// An rln node of a lab: its command line, and the start sequence RLN's own tests use
// (../shared/reference/rgb-lightning-node.md): init, unlock, address, fund, mine, createutxos,
// mine, issue an asset, connect, open an asset channel. After each mine the sequence waits until
// the indexer serves the new block; before /openchannel, until the node's height is the chain's;
// /openchannel is retried on 403. RLN runs only in the docker runtime, from an image built where
// GitHub is reachable.
import {
  RlnError,
  type RlnAsset,
  type RlnChainSync,
  type RlnChannel,
  type RlnClient,
  type RlnUnlockHead,
  type RlnUnlockOld,
} from '../../../../lib/rln/client.js';
import { retryWhile, waitFor } from '../../../../lib/wait.js';
import type { Placement } from '../../runtimes/types.js';

export const RLN_PORTS = ['api', 'p2p'] as const;

/** Arguments of `rgb-lightning-node` (the image's entry point) for a lab node. */
export function rlnArgs(placement: Placement): string[] {
  return [
    placement.dataDir,
    '--daemon-listening-port',
    String(placement.port('api')),
    '--ldk-peer-listening-port',
    String(placement.port('p2p')),
    '--network',
    'regtest',
    '--disable-authentication',
  ];
}

/** What the sequence needs from the lab: its chain, its wallet and its indexer. */
export interface RlnChainAccess {
  height(): Promise<number>;
  /** Mines blocks (through the lab's mining queue). */
  mine(blocks: number): Promise<void>;
  /** Pays `amountSat` to `address` from the lab wallet (unconfirmed until the next block). */
  send(address: string, amountSat: bigint): Promise<void>;
  /** The height of the newest block the lab's indexer serves. */
  indexedHeight(): Promise<number>;
}

/** How the node, from where it runs, reaches the lab's chain, indexer and RGB proxy. */
export interface RlnUnlockSettings {
  password: string;
  /** bitcoind: LDK follows blocks over its RPC. btcd: LDK follows transactions through the indexer. */
  chain: { kind: 'bitcoind'; host: string; port: number; user: string; password: string } | { kind: 'btcd' };
  /** e.g. tcp://reglab-lab-indexer:50001 */
  indexerUrl: string;
  /** e.g. rpc://reglab-lab-proxy:3000/json-rpc (OLD /unlock only; HEAD takes it per transfer). */
  proxyEndpoint?: string;
  alias?: string;
}

export interface RlnTiming {
  /** Between /openchannel attempts answered 403 (RLN's tests: 5 s). */
  retryMs?: number;
  /** For each wait of the sequence. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface RlnNodePlan {
  unlock: RlnUnlockSettings;
  fundingSat: bigint;
  /** Colored UTXOs for RGB allocations (RLN's tests: 10). */
  utxos?: { num: number; sizeSat?: number; feeRate?: number };
  asset?: { ticker: string; name: string; precision: number; amount: number };
}

export interface RlnBringUpResult {
  /** Present when this run initialised the node (keep it: it is the node's seed). */
  mnemonic?: string;
  unlockShape: 'head' | 'old';
  pubkey: string;
  address: string;
  asset?: RlnAsset;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const isReason = (error: unknown, pattern: RegExp) => error instanceof RlnError && pattern.test(error.reason);

/** Waits for the API, then /init (once per node) and /unlock; returns the seed when it was created now. */
export async function initAndUnlock(
  client: RlnClient,
  settings: RlnUnlockSettings,
  timing: RlnTiming = {},
): Promise<{ mnemonic?: string; shape: 'head' | 'old' }> {
  const timeoutMs = timing.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Any HTTP answer means the daemon is up (before /init every call is a 403).
  await waitFor(
    () =>
      client.networkInfo().then(
        () => true,
        (error: unknown) => error instanceof RlnError || Promise.reject(error),
      ),
    { timeoutMs, what: `RLN API at ${client.url}` },
  );
  let mnemonic: string | undefined;
  try {
    mnemonic = (await client.init(settings.password)).mnemonic;
  } catch (error) {
    if (!isReason(error, /already been initialized/i)) throw error;
  }
  const shape = await unlock(client, settings, timeoutMs);
  timing.log?.(`rln at ${client.url} unlocked (${shape} /unlock)`);
  return { mnemonic, shape };
}

async function unlock(client: RlnClient, settings: RlnUnlockSettings, timeoutMs: number): Promise<'head' | 'old'> {
  let shape: 'head' | 'old' = 'head';
  const attempt = async () => {
    try {
      await client.unlock(shape === 'head' ? headUnlock(settings) : oldUnlock(settings));
    } catch (error) {
      if (isReason(error, /node is unlocked/i)) return;
      if (error instanceof RlnError && error.status === 401) {
        throw new Error(
          `RLN at ${client.url} refused the lab's password: its data belongs to another lab; remove the node's volume`,
        );
      }
      if (
        shape === 'head' &&
        error instanceof RlnError &&
        (error.status === 422 || error.status === 400) &&
        /missing field|unknown field|deserializ/i.test(error.reason)
      ) {
        shape = 'old'; // an RLN from before the ldk_chain_sync /unlock
        return attempt();
      }
      throw error;
    }
  };
  await retryWhile(attempt, (error) => isReason(error, /changing state/i), { timeoutMs, intervalMs: 1_000 });
  return shape;
}

export function headUnlock(settings: RlnUnlockSettings): RlnUnlockHead {
  const sync: RlnChainSync =
    settings.chain.kind === 'bitcoind'
      ? {
          mode: 'BlockSync',
          config: {
            bitcoind_rpc_username: settings.chain.user,
            bitcoind_rpc_password: settings.chain.password,
            bitcoind_rpc_host: settings.chain.host,
            bitcoind_rpc_port: settings.chain.port,
          },
        }
      : { mode: 'TransactionSync', config: { indexer_url: settings.indexerUrl } };
  return {
    password: settings.password,
    ldk_chain_sync: sync,
    indexer_url: settings.indexerUrl,
    announce_addresses: [],
    ...(settings.alias ? { announce_alias: settings.alias } : {}),
  };
}

export function oldUnlock(settings: RlnUnlockSettings): RlnUnlockOld {
  if (settings.chain.kind !== 'bitcoind') {
    throw new Error(
      'this RLN version takes the OLD /unlock, which follows the chain over bitcoind RPC only: run the lab with chain kind bitcoind, or use a newer RLN image',
    );
  }
  return {
    password: settings.password,
    bitcoind_rpc_username: settings.chain.user,
    bitcoind_rpc_password: settings.chain.password,
    bitcoind_rpc_host: settings.chain.host,
    bitcoind_rpc_port: settings.chain.port,
    indexer_url: settings.indexerUrl,
    ...(settings.proxyEndpoint ? { proxy_endpoint: settings.proxyEndpoint } : {}),
    announce_addresses: [],
    ...(settings.alias ? { announce_alias: settings.alias } : {}),
  };
}

/** Mines, then waits until the indexer serves the new tip (RLN reads the chain through it). */
export async function mineAndIndex(chain: RlnChainAccess, blocks: number, timing: RlnTiming = {}): Promise<number> {
  await chain.mine(blocks);
  const tip = await chain.height();
  await waitFor(async () => (await chain.indexedHeight()) >= tip, {
    timeoutMs: timing.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    what: `the indexer to serve block ${tip}`,
  });
  return tip;
}

/** /address, fund, mine, then the colored UTXOs. */
export async function fundAndCreateUtxos(
  client: RlnClient,
  chain: RlnChainAccess,
  plan: Pick<RlnNodePlan, 'fundingSat' | 'utxos'>,
  timing: RlnTiming = {},
): Promise<string> {
  const address = await client.address();
  await chain.send(address, plan.fundingSat);
  await mineAndIndex(chain, 1, timing);
  await createColoredUtxos(client, chain, plan.utxos, timing);
  timing.log?.(`rln at ${client.url} funded with ${plan.fundingSat} sat`);
  return address;
}

/** /createutxos (retried while the node has not seen its funds), then a block to confirm them. */
export async function createColoredUtxos(
  client: RlnClient,
  chain: RlnChainAccess,
  utxos: RlnNodePlan['utxos'] = { num: 10 },
  timing: RlnTiming = {},
): Promise<void> {
  await retryWhile(
    () =>
      client.createUtxos({
        up_to: false,
        num: utxos.num,
        ...(utxos.sizeSat ? { size: utxos.sizeSat } : {}),
        fee_rate: utxos.feeRate ?? 1,
        skip_sync: false,
      }),
    (error) => isReason(error, /not enough funds|changing state/i),
    { timeoutMs: timing.timeoutMs ?? DEFAULT_TIMEOUT_MS, intervalMs: 1_000 },
  );
  await mineAndIndex(chain, 1, timing);
  timing.log?.(`rln at ${client.url}: ${utxos.num} colored UTXOs created`);
}

export function issueNia(client: RlnClient, asset: NonNullable<RlnNodePlan['asset']>): Promise<RlnAsset> {
  return client.issueAssetNia({
    amounts: [asset.amount],
    ticker: asset.ticker,
    name: asset.name,
    precision: asset.precision,
  });
}

export interface AssetChannelPlan {
  /** pubkey@host:port of the peer, as the node reaches it. */
  peer: string;
  capacitySat: number;
  pushMsat?: number;
  asset?: { id: string; amount: number };
  /** Confirmations mined after the funding transaction (RLN channels need 6). */
  confirmations?: number;
}

/** Connects, waits until the node is at the chain tip, opens (retrying 403s), mines and waits until usable. */
export async function openAssetChannel(
  client: RlnClient,
  chain: RlnChainAccess,
  plan: AssetChannelPlan,
  timing: RlnTiming = {},
): Promise<RlnChannel> {
  const timeoutMs = timing.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const peerPubkey = plan.peer.split('@')[0];
  if (plan.asset && plan.capacitySat < 30_010)
    throw new Error(`an RGB channel needs at least 30010 sat of capacity, not ${plan.capacitySat}`);
  await client.connectPeer(plan.peer);
  const tip = await chain.height();
  await waitFor(async () => (await client.networkInfo()).height >= tip, {
    timeoutMs,
    what: `RLN at ${client.url} to reach chain height ${tip}`,
  });
  const request = {
    peer_pubkey_and_opt_addr: plan.peer,
    capacity_sat: plan.capacitySat,
    push_msat: plan.pushMsat ?? 0,
    ...(plan.asset ? { asset_id: plan.asset.id, asset_amount: plan.asset.amount } : {}),
    public: true,
    with_anchors: true,
  };
  await retryWhile(
    () => client.openChannel(request),
    (error) => error instanceof RlnError && error.forbidden,
    {
      timeoutMs,
      intervalMs: timing.retryMs ?? 5_000,
      onRetry: (error) => timing.log?.(`rln /openchannel answered 403 (${(error as RlnError).reason}); retrying`),
    },
  );
  await mineAndIndex(chain, plan.confirmations ?? 6, timing);
  return waitFor(
    async () => {
      const channels = await client.listChannels();
      return channels.find(
        (channel) =>
          channel.peer_pubkey === peerPubkey &&
          channel.ready &&
          channel.is_usable &&
          (plan.asset ? channel.asset_id === plan.asset.id : true),
      );
    },
    { timeoutMs, intervalMs: 1_000, what: `the channel from ${client.url} to ${peerPubkey} to be usable` },
  );
}

/** The whole start sequence of one node; channels are opened by openAssetChannel once peers are up. */
export async function bringUpRln(
  client: RlnClient,
  chain: RlnChainAccess,
  plan: RlnNodePlan,
  timing: RlnTiming = {},
): Promise<RlnBringUpResult> {
  const { mnemonic, shape } = await initAndUnlock(client, plan.unlock, timing);
  const address = await fundAndCreateUtxos(client, chain, plan, timing);
  const asset = plan.asset ? await issueNia(client, plan.asset) : undefined;
  const { pubkey } = await client.nodeInfo();
  return { mnemonic, unlockShape: shape, pubkey, address, asset };
}
