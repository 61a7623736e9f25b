import { JsonRpcClient } from './rpc.js';
import type { BlockAtHeight, BlockSummary, ChainDriver, ChainKind, ChainRpcConfig } from './types.js';

const SAT_PER_BTC = 100_000_000;

/** Sat/vB from a BTC/kvB rate, or undefined when the node has no estimate (it answers <= 0). */
export function btcPerKvbToSatPerVb(rate: number): number | undefined {
  return rate > 0 ? Math.max(1, Math.round((rate * SAT_PER_BTC) / 1000)) : undefined;
}

/** The calls btcd and bitcoind answer alike; each kind adds how it mines and estimates fees. */
export abstract class RpcChainDriver implements ChainDriver {
  abstract readonly kind: ChainKind;
  protected readonly rpc: JsonRpcClient;

  constructor(config: ChainRpcConfig) {
    this.rpc = new JsonRpcClient(config);
  }

  abstract estimateFeeRate(targetBlocks: number): Promise<number | undefined>;
  abstract mine(blocks: number, address: string): Promise<string[]>;

  call<T>(method: string, params: unknown[] = []): Promise<T> {
    return this.rpc.call<T>(method, params);
  }

  getBlockCount() {
    return this.call<number>('getblockcount');
  }

  getBestBlockHash() {
    return this.call<string>('getbestblockhash');
  }

  getBlockHash(height: number) {
    return this.call<string>('getblockhash', [height]);
  }

  getBlockHex(hash: string) {
    return this.call<string>('getblock', [hash, 0]);
  }

  /** Two batches: the hashes, then the blocks. */
  async getBlocksAtHeights(heights: number[]): Promise<BlockAtHeight[]> {
    const hashes = await this.rpc.batch<string>(
      heights.map((height) => ({ method: 'getblockhash', params: [height] })),
    );
    const hexes = await this.rpc.batch<string>(hashes.map((hash) => ({ method: 'getblock', params: [hash, 0] })));
    return heights.map((height, i) => ({ height, hash: hashes[i]!, hex: hexes[i]! }));
  }

  /** Submits blocks in one batch, in order; each answer is null when the block was accepted, else the node's reason. */
  submitBlocks(hexes: string[]): Promise<(string | null)[]> {
    return this.rpc.batch<string | null>(hexes.map((hex) => ({ method: 'submitblock', params: [hex] })));
  }

  getBlockHeaderHex(hash: string) {
    return this.call<string>('getblockheader', [hash, false]);
  }

  async getBlockSummary(hash: string): Promise<BlockSummary> {
    const block = await this.call<{
      hash: string;
      height: number;
      time: number;
      previousblockhash?: string;
      tx: string[];
    }>('getblock', [hash, 1]);
    return {
      hash: block.hash,
      height: block.height,
      time: block.time,
      previousBlockHash: block.previousblockhash,
      txids: block.tx,
    };
  }

  getRawTransactionHex(txid: string) {
    return this.call<string>('getrawtransaction', [txid, 0]);
  }

  getRawMempool() {
    return this.call<string[]>('getrawmempool');
  }

  sendRawTransaction(hex: string) {
    return this.call<string>('sendrawtransaction', [hex]);
  }

  async getPeerCount() {
    return (await this.call<unknown[]>('getpeerinfo')).length;
  }

  close() {
    this.rpc.close();
  }
}
