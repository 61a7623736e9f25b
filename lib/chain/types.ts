/** What the lab and its services need from a chain node, whatever its kind (btcd or bitcoind). */
export interface ChainDriver {
  readonly kind: ChainKind;
  getBlockCount(): Promise<number>;
  getBestBlockHash(): Promise<string>;
  getBlockHash(height: number): Promise<string>;
  /** The whole block, serialized with witnesses, as hex. */
  getBlockHex(hash: string): Promise<string>;
  /** The blocks of the best chain at these heights (hash and hex, as getBlockHash and getBlockHex
   * give them), fetched in as few round trips as the node allows. */
  getBlocksAtHeights(heights: number[]): Promise<BlockAtHeight[]>;
  /** The 80-byte header as hex. */
  getBlockHeaderHex(hash: string): Promise<string>;
  getBlockSummary(hash: string): Promise<BlockSummary>;
  /** Any transaction the node knows (needs a transaction index for confirmed ones on btcd). */
  getRawTransactionHex(txid: string): Promise<string>;
  getRawMempool(): Promise<string[]>;
  /** Returns the txid; throws ChainRpcError carrying the node's reason when it is rejected. */
  sendRawTransaction(hex: string): Promise<string>;
  /** Fee rate in sat/vB for confirmation within `targetBlocks`, or undefined when the node cannot tell (it throws when it cannot be reached). */
  estimateFeeRate(targetBlocks: number): Promise<number | undefined>;
  /** Mines `blocks` blocks paying their coinbase to `address`; returns the new block hashes. */
  mine(blocks: number, address: string): Promise<string[]>;
  getPeerCount(): Promise<number>;
}

export type ChainKind = 'btcd' | 'bitcoind';

/** What a request got back: the HTTP status (200 for a websocket message), the body's text, and its JSON when read. */
export interface RpcExchange {
  status: number;
  text: string;
  json?: unknown;
}

export interface BlockAtHeight {
  height: number;
  hash: string;
  hex: string;
}

export interface BlockSummary {
  hash: string;
  height: number;
  /** Unix seconds. */
  time: number;
  previousBlockHash?: string;
  txids: string[];
}

export interface ChainRpcConfig {
  kind: ChainKind;
  /** http(s)://host:port of the JSON-RPC endpoint. */
  url: string;
  user: string;
  password: string;
  /** PEM of the node's self-signed TLS certificate (btcd), when the URL is https. */
  tlsCertPem?: string;
}

export class ChainRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'ChainRpcError';
  }
}

/**
 * The fee rate of the spec's regtest fallback: 0.0002 BTC/kvB = 20 sat/vB. Used wherever the node
 * has nothing better (btcd has no estimatesmartfee, and regtest mempools are nearly empty).
 */
export const FALLBACK_FEE_SAT_PER_VB = 20;

/** btcd's and bitcoind's default minimum relay fee, 0.00001 BTC/kvB. */
export const MINIMUM_RELAY_FEE_SAT_PER_VB = 1;
