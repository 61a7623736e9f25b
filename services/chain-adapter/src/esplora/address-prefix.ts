import { address as bitcoinAddress, Block, type Transaction, type Network } from 'bitcoinjs-lib';
import type { ChainDriver } from '../../../../lib/chain/types.js';
import type { ChainData } from './chain-data.js';

/** Esplora's GET /address-prefix answers at most this many addresses. */
export const PREFIX_RESULTS = 10;
/** Blocks fetched at once while catching up. */
const PARALLEL = 16;

/**
 * Every address the chain and the mempool have paid, for Esplora's prefix search. The confirmed part
 * is built once from the node's blocks and extended block by block; a reorg (the block at the
 * remembered height changed) builds it anew.
 */
export class AddressDirectory {
  private confirmed = new Set<string>();
  private height = -1;
  private hash: string | undefined;
  private updating: Promise<void> | undefined;

  constructor(
    private readonly driver: ChainDriver,
    private readonly data: ChainData,
    private readonly network: Network,
  ) {}

  private addressesOf(tx: Transaction, into: Set<string>): void {
    for (const output of tx.outs) {
      try {
        into.add(bitcoinAddress.fromOutputScript(output.script, this.network));
      } catch {
        // not an address (OP_RETURN, bare multisig, non-standard)
      }
    }
  }

  private async catchUp(): Promise<void> {
    const tip = await this.driver.getBlockCount();
    if (this.hash !== undefined && (this.height > tip || (await this.driver.getBlockHash(this.height)) !== this.hash)) {
      this.confirmed = new Set();
      this.height = -1;
    }
    for (let from = this.height + 1; from <= tip; from += PARALLEL) {
      const heights = Array.from({ length: Math.min(PARALLEL, tip - from + 1) }, (_, i) => from + i);
      const blocks = await Promise.all(
        heights.map(async (height) =>
          Block.fromHex(await this.driver.getBlockHex(await this.driver.getBlockHash(height))),
        ),
      );
      for (const block of blocks) for (const tx of block.transactions ?? []) this.addressesOf(tx, this.confirmed);
      this.height = heights.at(-1)!;
      this.hash = blocks.at(-1)!.getId();
    }
  }

  /** Up to PREFIX_RESULTS addresses starting with `prefix` (bech32 prefixes match in any case), sorted. */
  async search(prefix: string): Promise<string[]> {
    this.updating ??= this.catchUp().finally(() => (this.updating = undefined));
    await this.updating;
    const all = new Set(this.confirmed);
    for (const txid of await this.driver.getRawMempool()) {
      const tx = await this.data.transaction(txid).catch(() => undefined);
      if (tx) this.addressesOf(tx, all);
    }
    const wanted = /^(bc|tb|bcrt)1/i.test(prefix) ? prefix.toLowerCase() : prefix;
    return [...all]
      .filter((address) => address.startsWith(wanted))
      .sort()
      .slice(0, PREFIX_RESULTS);
  }
}
