import { buildRegtestBlock, type BlockTemplate } from './block-builder.js';
import { RpcChainDriver, btcPerKvbToSatPerVb } from './rpc-driver.js';
import { ChainRpcError } from './types.js';

/**
 * btcd over its JSON-RPC. btcd has no wallet, no generatetoaddress and no estimatesmartfee: blocks
 * to an address are built from getblocktemplate here and submitted, and fee estimates come from
 * its old estimatefee.
 */
export class BtcdDriver extends RpcChainDriver {
  readonly kind = 'btcd' as const;

  async estimateFeeRate(targetBlocks: number): Promise<number | undefined> {
    try {
      return btcPerKvbToSatPerVb(await this.call<number>('estimatefee', [targetBlocks]));
    } catch (error) {
      // btcd refuses targets it does not estimate (beyond 25 blocks); a node that cannot be reached is another matter
      if (error instanceof ChainRpcError) return undefined;
      throw error;
    }
  }

  async mine(blocks: number, address: string): Promise<string[]> {
    const hashes: string[] = [];
    for (let i = 0; i < blocks; i++) {
      const template = await this.call<BlockTemplate>('getblocktemplate', [
        { mode: 'template', capabilities: ['coinbasevalue'], rules: ['segwit'] },
      ]);
      const block = buildRegtestBlock(template, address);
      const rejection = await this.call<string | null>('submitblock', [block.toHex()]);
      if (rejection) throw new Error(`btcd rejected a mined block at height ${template.height}: ${rejection}`);
      hashes.push(block.getId());
    }
    return hashes;
  }

  /** btcd's own miner, paying to its --miningaddr: much faster for the hundreds of blocks of a bring-up. */
  generate(blocks: number) {
    return this.call<string[]>('generate', [blocks]);
  }
}
