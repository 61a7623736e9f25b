import { RpcChainDriver, btcPerKvbToSatPerVb } from './rpc-driver.js';

/** Bitcoin Core over its JSON-RPC: Core mines to any address and has estimatesmartfee. */
export class BitcoindDriver extends RpcChainDriver {
  readonly kind = 'bitcoind' as const;

  async estimateFeeRate(targetBlocks: number): Promise<number | undefined> {
    const estimate = await this.call<{ feerate?: number }>('estimatesmartfee', [targetBlocks]);
    return estimate.feerate === undefined ? undefined : btcPerKvbToSatPerVb(estimate.feerate);
  }

  mine(blocks: number, address: string) {
    return this.call<string[]>('generatetoaddress', [blocks, address]);
  }
}
