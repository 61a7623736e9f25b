import type { ChainDriver } from '../../../lib/chain/types.js';
import { fromDisplayHex, toDisplayHex } from './hashes.js';
import { outpointKey, parseTransactionHex, type IndexedTx } from './parse.js';
import type { IndexStore } from './store.js';

interface SpentOutput {
  scriptHash: Buffer;
  value: bigint;
}

interface ResolvedInput {
  outpoint: string;
  parentTxid: string;
  /** The output it spends, once known (from another mempool tx, the index, or the node). */
  spent?: SpentOutput;
}

export interface MempoolEntry {
  txid: string;
  tx: IndexedTx;
  inputs: ResolvedInput[];
}

export interface MempoolOutput {
  txid: string;
  vout: number;
  value: bigint;
}

/**
 * The node's mempool as the index sees it, kept in memory and refreshed by polling getrawmempool.
 * Script hashes are internal-order hex.
 */
export class Mempool {
  private readonly entries = new Map<string, MempoolEntry>();
  private readonly byScriptHash = new Map<string, Set<string>>();
  /** Outpoint -> txid of the mempool tx spending it. */
  private readonly spentBy = new Map<string, string>();

  /** Brings the view in line with the node; returns the script hashes whose mempool part changed. */
  async sync(driver: ChainDriver, store: IndexStore): Promise<Set<string>> {
    const touched = new Set<string>();
    const current = new Set(await driver.getRawMempool());
    for (const txid of [...this.entries.keys()]) {
      if (!current.has(txid)) this.remove(txid, touched);
    }
    const added: { txid: string; tx: IndexedTx }[] = [];
    for (const txid of current) {
      if (this.entries.has(txid)) continue;
      try {
        added.push({ txid, tx: parseTransactionHex(await driver.getRawTransactionHex(txid)) });
      } catch {
        // left the mempool between the two calls; the next poll settles it
      }
    }
    // Inputs are resolved only after every new tx is known, so a child may arrive before its parent.
    for (const { txid, tx } of added) {
      this.entries.set(txid, { txid, tx, inputs: [] });
      for (const output of tx.outputs) this.index(output.scriptHash.toString('hex'), txid, touched);
    }
    for (const { txid, tx } of added) {
      const entry = this.entries.get(txid)!;
      for (const spend of tx.spends) {
        const outpoint = outpointKey(spend);
        entry.inputs.push({ outpoint, parentTxid: toDisplayHex(spend.txid) });
        this.spentBy.set(outpoint, txid);
      }
    }
    // Retried for older entries too, should the node not have answered before.
    for (const entry of this.entries.values()) {
      for (const [index, input] of entry.inputs.entries()) {
        if (input.spent) continue;
        input.spent = await this.resolve(input.parentTxid, entry.tx.spends[index]!.vout, driver, store);
        if (input.spent) this.index(input.spent.scriptHash.toString('hex'), entry.txid, touched);
      }
    }
    return touched;
  }

  /**
   * The output an input spends: from a mempool tx, the index, or else the node (the parent may be in
   * a block the index has not reached yet).
   */
  private async resolve(
    txid: string,
    vout: number,
    driver: ChainDriver,
    store: IndexStore,
  ): Promise<SpentOutput | undefined> {
    const known =
      this.entries.get(txid)?.tx.outputs[vout] ?? (await store.output({ txid: fromDisplayHex(txid), vout }));
    if (known) return known;
    try {
      return parseTransactionHex(await driver.getRawTransactionHex(txid)).outputs[vout];
    } catch {
      return undefined;
    }
  }

  /** Drops txs that a block confirmed (before the next poll would), so no tx is counted twice. */
  removeConfirmed(txids: readonly string[], touched: Set<string>): void {
    const confirmed = new Set(txids);
    for (const txid of txids) this.remove(txid, touched);
    // A child of a confirmed tx goes from height -1 to 0, which changes its script hashes' status.
    for (const entry of this.entries.values()) {
      if (entry.inputs.some((input) => confirmed.has(input.parentTxid))) {
        for (const scriptHash of this.scriptHashesOf(entry)) touched.add(scriptHash);
      }
    }
  }

  entriesFor(scriptHash: string): MempoolEntry[] {
    return [...(this.byScriptHash.get(scriptHash) ?? [])].map((txid) => this.entries.get(txid)!);
  }

  /** 0, or -1 when the tx spends an output of another mempool tx (the Electrum protocol's convention). */
  heightOf(entry: MempoolEntry): number {
    return entry.inputs.some((input) => this.entries.has(input.parentTxid)) ? -1 : 0;
  }

  /** The fee in sat, or undefined when an input's value is unknown. */
  feeOf(entry: MempoolEntry): bigint | undefined {
    let fee = 0n;
    for (const input of entry.inputs) {
      if (input.spent === undefined) return undefined;
      fee += input.spent.value;
    }
    for (const output of entry.tx.outputs) fee -= output.value;
    return fee;
  }

  isSpent(outpoint: string): boolean {
    return this.spentBy.has(outpoint);
  }

  /** Outputs of mempool txs paying `scriptHash`. */
  outputsFor(scriptHash: string): MempoolOutput[] {
    const outputs: MempoolOutput[] = [];
    for (const entry of this.entriesFor(scriptHash)) {
      for (const [vout, output] of entry.tx.outputs.entries()) {
        if (output.scriptHash.toString('hex') === scriptHash)
          outputs.push({ txid: entry.txid, vout, value: output.value });
      }
    }
    return outputs;
  }

  get size(): number {
    return this.entries.size;
  }

  private scriptHashesOf(entry: MempoolEntry): string[] {
    return [
      ...entry.tx.outputs.map((output) => output.scriptHash.toString('hex')),
      ...entry.inputs.flatMap((input) => (input.spent ? [input.spent.scriptHash.toString('hex')] : [])),
    ];
  }

  private index(scriptHash: string, txid: string, touched: Set<string>): void {
    let txids = this.byScriptHash.get(scriptHash);
    if (!txids) this.byScriptHash.set(scriptHash, (txids = new Set()));
    txids.add(txid);
    touched.add(scriptHash);
  }

  private remove(txid: string, touched: Set<string>): void {
    const entry = this.entries.get(txid);
    if (!entry) return;
    this.entries.delete(txid);
    for (const scriptHash of this.scriptHashesOf(entry)) {
      touched.add(scriptHash);
      const txids = this.byScriptHash.get(scriptHash);
      txids?.delete(txid);
      if (txids?.size === 0) this.byScriptHash.delete(scriptHash);
    }
    for (const input of entry.inputs) {
      if (this.spentBy.get(input.outpoint) === txid) this.spentBy.delete(input.outpoint);
    }
  }
}
