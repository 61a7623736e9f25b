import { FeeCurve } from '../../../../lib/chain/fee-curve.js';
import type { FeePolicy } from '../../../../lib/chain/fee-policy.js';
import { ChainRpcError, type ChainDriver } from '../../../../lib/chain/types.js';
import { ConfirmedTxCache } from '../confirmed-txs.js';
import { fromDisplayHex, merkleBranch, toDisplayHex } from '../hashes.js';
import { transactionHexInBlock } from '../parse.js';
import type { ScriptHashQueries } from '../queries.js';
import type { IndexStore } from '../store.js';
import { verboseTransaction, type BlockPlace } from '../verbose-tx.js';
import { ErrorCode, type Params, RpcError } from './protocol.js';

export const SERVER_VERSION = 'reglab-indexer 0.1.0';
export const PROTOCOL_VERSION = '1.4';
/** Most headers one blockchain.block.headers call returns (ElectrumX's and electrs' figure). */
const MAX_HEADERS = 2016;
/** btcd's default minimum relay fee, in BTC/kvB. */
const RELAY_FEE_BTC_PER_KVB = 0.00001;
// Bitcoin Core's wording, which clients match on (rgb-lib does, to tell "not there" from a failure).
const UNKNOWN_TX = 'No such mempool or blockchain transaction';
const GENESIS_COINBASE = 'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved';

export interface MethodContext {
  store: IndexStore;
  queries: ScriptHashQueries;
  driver: ChainDriver;
  /** Makes the follower look at the node now (after a broadcast). */
  pokeFollower(): Promise<void>;
  banner: string;
  /** The lab's fee policy (the node's estimates when not given). */
  fees?: FeePolicy;
}

/** What a method may do to the connection that called it. */
export interface SessionHandle {
  subscribeHeaders(): void;
  /** `scriptHash` is internal-order hex. */
  subscribeScriptHash(scriptHash: string, status: string | null): void;
  unsubscribeScriptHash(scriptHash: string): boolean;
}

type Method = (params: Params, session: SessionHandle) => Promise<unknown> | unknown;

interface MethodSpec {
  names: string[];
  run: Method;
}

/** Electrum clients send script hashes byte-reversed; the index keys them in internal order. */
function internalScriptHash(params: Params, index: number): string {
  return fromDisplayHex(params.hash(index)).toString('hex');
}

/** A method whose one parameter is a script hash. */
function byScriptHash(run: (scriptHash: string, session: SessionHandle) => unknown): MethodSpec {
  return { names: ['scripthash'], run: (params, session) => run(internalScriptHash(params, 0), session) };
}

function btcPerKvB(satPerVb: number): number {
  return Math.round(satPerVb * 1000) / 1e8;
}

export function createMethods(context: MethodContext): Map<string, MethodSpec> {
  const { store, queries, driver } = context;
  const fees = new FeeCurve(driver, context.fees);

  const tipHeader = () => {
    const height = store.height;
    if (height < 0)
      throw new RpcError(ErrorCode.daemonError, 'the index has no blocks yet; wait for it to catch up with the node');
    return { height, hex: store.headerAt(height)!.toString('hex') };
  };

  const headerHex = (height: number) => {
    const header = store.headerAt(height);
    if (!header) throw new RpcError(ErrorCode.badRequest, `height ${height} is above the indexed tip ${store.height}`);
    return header.toString('hex');
  };

  /** Proof that the header at `height` is in the Merkle tree of the block hashes 0..cpHeight. */
  const checkpointProof = (height: number, cpHeight: number) => {
    if (height > cpHeight) throw new RpcError(ErrorCode.badRequest, `height ${height} is above cp_height ${cpHeight}`);
    if (cpHeight > store.height)
      throw new RpcError(ErrorCode.badRequest, `cp_height ${cpHeight} is above the indexed tip ${store.height}`);
    const leaves = Array.from({ length: cpHeight + 1 }, (_, h) => store.hashAt(h)!);
    const { branch, root } = merkleBranch(leaves, height);
    return { branch: branch.map(toDisplayHex), root: toDisplayHex(root) };
  };

  const txMerkle = async (txidHex: string, expectedHeight?: number) => {
    const txid = fromDisplayHex(txidHex);
    const position = await store.txPosition(txid);
    if (!position || (expectedHeight !== undefined && position.height !== expectedHeight)) {
      throw new RpcError(
        ErrorCode.badRequest,
        `tx ${txidHex} is not in the block at height ${expectedHeight ?? '(any)'}`,
      );
    }
    const { branch } = merkleBranch(await store.blockTxids(position.height), position.position);
    return { block_height: position.height, merkle: branch.map(toDisplayHex), pos: position.position };
  };

  const confirmedTxs = new ConfirmedTxCache();

  const fetchTransaction = async (
    txidHex: string,
    position: { height: number; position: number } | undefined,
  ): Promise<string> => {
    try {
      return await driver.getRawTransactionHex(txidHex);
    } catch (error) {
      // Without a transaction index the node cannot find confirmed txs by id; the block has it.
      if (!position)
        throw new RpcError(
          ErrorCode.badRequest,
          `${UNKNOWN_TX}: ${txidHex} (the node answered: ${(error as Error).message})`,
        );
      return transactionHexInBlock(
        await driver.getBlockHex(toDisplayHex(store.hashAt(position.height)!)),
        position.position,
      );
    }
  };

  const rawTransaction = async (txidHex: string): Promise<string> => {
    const txid = fromDisplayHex(txidHex);
    // The genesis block has one tx, so its Merkle root is the coinbase's txid (the index keeps no tx of it).
    if (store.headerAt(0)?.subarray(36, 68).equals(txid)) throw new RpcError(ErrorCode.badRequest, GENESIS_COINBASE);
    const position = await store.txPosition(txid);
    const blockHash = position && store.hashAt(position.height)?.toString('hex');
    const cached = blockHash && confirmedTxs.get(txidHex, blockHash);
    if (cached) return cached;
    const hex = await fetchTransaction(txidHex, position);
    if (blockHash) confirmedTxs.set(txidHex, blockHash, hex);
    return hex;
  };

  /** Where the index has the tx confirmed; read after the hex, so a block applied meanwhile counts. */
  const blockPlace = async (txidHex: string): Promise<BlockPlace | undefined> => {
    const position = await store.txPosition(fromDisplayHex(txidHex));
    const header = position && store.headerAt(position.height);
    if (!position || !header) return undefined;
    return {
      hash: toDisplayHex(store.hashAt(position.height)!),
      height: position.height,
      time: header.readUInt32LE(68),
      tipHeight: store.height,
    };
  };

  const specs: Record<string, MethodSpec> = {
    'server.version': {
      names: ['client_name', 'protocol_version'],
      run: () => [SERVER_VERSION, PROTOCOL_VERSION],
    },
    'server.ping': { names: [], run: () => null },
    'server.banner': { names: [], run: () => context.banner },
    'server.donation_address': { names: [], run: () => '' },
    'server.peers.subscribe': { names: [], run: () => [] },
    'server.features': {
      names: [],
      run: () => ({
        genesis_hash: toDisplayHex(store.hashAt(0) ?? Buffer.alloc(32)),
        hosts: {},
        protocol_max: PROTOCOL_VERSION,
        protocol_min: PROTOCOL_VERSION,
        pruning: null,
        server_version: SERVER_VERSION,
        hash_function: 'sha256',
      }),
    },
    'blockchain.headers.subscribe': {
      names: [],
      run: (_params, session) => {
        session.subscribeHeaders();
        return tipHeader();
      },
    },
    'blockchain.block.header': {
      names: ['height', 'cp_height'],
      run: (params) => {
        const height = params.nonNegativeInt(0);
        const cpHeight = params.nonNegativeInt(1, 0);
        const header = headerHex(height);
        return cpHeight === 0 ? header : { header, ...checkpointProof(height, cpHeight) };
      },
    },
    'blockchain.block.headers': {
      names: ['start_height', 'count', 'cp_height'],
      run: (params) => {
        const start = params.nonNegativeInt(0);
        const count = Math.min(params.nonNegativeInt(1), MAX_HEADERS, Math.max(0, store.height - start + 1));
        const cpHeight = params.nonNegativeInt(2, 0);
        const hex = Array.from({ length: count }, (_, i) => headerHex(start + i)).join('');
        const result = { count, hex, max: MAX_HEADERS };
        return cpHeight === 0 || count === 0 ? result : { ...result, ...checkpointProof(start + count - 1, cpHeight) };
      },
    },
    'blockchain.estimatefee': {
      names: ['number'],
      run: async (params) => {
        // The chain adapter's rates: the lab's fixed rate, or the node's curve (never rising with the target)
        const target = params.nonNegativeInt(0);
        try {
          return btcPerKvB(await fees.rateFor(target));
        } catch (error) {
          throw new RpcError(
            ErrorCode.daemonError,
            `no fee estimate: the node cannot be reached (${(error as Error).message}); a transaction could not be broadcast either`,
          );
        }
      },
    },
    'blockchain.relayfee': { names: [], run: () => RELAY_FEE_BTC_PER_KVB },
    'mempool.get_fee_histogram': { names: [], run: () => [] },
    'blockchain.scripthash.get_history': byScriptHash((scriptHash) => queries.history(scriptHash)),
    'blockchain.scripthash.get_mempool': byScriptHash((scriptHash) => queries.mempoolHistory(scriptHash)),
    'blockchain.scripthash.get_balance': byScriptHash((scriptHash) => queries.balance(scriptHash)),
    'blockchain.scripthash.listunspent': byScriptHash((scriptHash) => queries.listUnspent(scriptHash)),
    'blockchain.scripthash.subscribe': byScriptHash(async (scriptHash, session) => {
      const status = await queries.status(scriptHash);
      session.subscribeScriptHash(scriptHash, status);
      return status;
    }),
    'blockchain.scripthash.unsubscribe': byScriptHash((scriptHash, session) =>
      session.unsubscribeScriptHash(scriptHash),
    ),
    'blockchain.transaction.get': {
      names: ['tx_hash', 'verbose'],
      run: async (params) => {
        const txid = params.hash(0);
        if (!params.bool(1, false)) return rawTransaction(txid);
        const hex = await rawTransaction(txid);
        // Whoever asks about an unconfirmed tx is waiting for it to confirm (rgb-lib settles
        // transfers so, right after a block): look at the node now rather than at the next poll.
        let place = await blockPlace(txid);
        if (place === undefined) {
          await context.pokeFollower();
          place = await blockPlace(txid);
        }
        return verboseTransaction(hex, place);
      },
    },
    'blockchain.transaction.broadcast': {
      names: ['raw_tx'],
      run: async (params) => {
        // read before the node is asked, so bad input is the caller's error, not the node's
        const hex = params.rawTransaction(0);
        try {
          const txid = await driver.sendRawTransaction(hex);
          await context.pokeFollower();
          return txid;
        } catch (error) {
          if (error instanceof ChainRpcError) throw new RpcError(ErrorCode.badRequest, error.message);
          throw new RpcError(ErrorCode.daemonError, `the node could not be asked: ${(error as Error).message}`);
        }
      },
    },
    'blockchain.transaction.get_merkle': {
      names: ['tx_hash', 'height'],
      run: (params) => txMerkle(params.hash(0), params.value(1) === undefined ? undefined : params.nonNegativeInt(1)),
    },
    'blockchain.transaction.id_from_pos': {
      names: ['height', 'tx_pos', 'merkle'],
      run: async (params) => {
        const height = params.nonNegativeInt(0);
        const position = params.nonNegativeInt(1);
        if (height > store.height)
          throw new RpcError(ErrorCode.badRequest, `height ${height} is above the indexed tip ${store.height}`);
        const txids = await store.blockTxids(height);
        const txid = txids[position];
        if (!txid)
          throw new RpcError(ErrorCode.badRequest, `no transaction at position ${position} of block ${height}`);
        if (!params.bool(2, false)) return toDisplayHex(txid);
        return { tx_hash: toDisplayHex(txid), merkle: merkleBranch(txids, position).branch.map(toDisplayHex) };
      },
    },
  };
  return new Map(Object.entries(specs));
}
