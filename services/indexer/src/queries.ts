import { statusHash, toDisplayHex } from './hashes.js';
import type { Mempool } from './mempool.js';
import type { IndexStore } from './store.js';

export interface HistoryEntry {
  tx_hash: string;
  height: number;
  /** Mempool txs only (Electrum requires it there). */
  fee?: number;
}

export interface UnspentEntry {
  tx_hash: string;
  tx_pos: number;
  height: number;
  value: number;
}

/**
 * Answers about one script hash from the confirmed index and the mempool together.
 * Script hashes are internal-order hex (Electrum clients send them byte-reversed).
 */
export class ScriptHashQueries {
  constructor(
    private readonly store: IndexStore,
    private readonly mempool: Mempool,
  ) {}

  /** Confirmed txs in chain order, then mempool txs; the order the status hash is computed in. */
  async history(scriptHash: string): Promise<HistoryEntry[]> {
    const confirmed = (await this.store.history(Buffer.from(scriptHash, 'hex'))).map((item) => ({
      tx_hash: toDisplayHex(item.txid),
      height: item.height,
    }));
    // A block applied while the index was read may have confirmed a tx still in this mempool view.
    const seen = new Set(confirmed.map((item) => item.tx_hash));
    return [...confirmed, ...this.mempoolHistory(scriptHash).filter((item) => !seen.has(item.tx_hash))];
  }

  mempoolHistory(scriptHash: string): HistoryEntry[] {
    return (
      this.mempool
        .entriesFor(scriptHash)
        // 0 when an input is still unknown: clients such as Electrum refuse a mempool item without a fee.
        .map((entry) => ({
          tx_hash: entry.txid,
          height: this.mempool.heightOf(entry),
          fee: Number(this.mempool.feeOf(entry) ?? 0n),
        }))
        .sort((a, b) => b.height - a.height || a.tx_hash.localeCompare(b.tx_hash))
    );
  }

  async status(scriptHash: string): Promise<string | null> {
    return statusHash((await this.history(scriptHash)).map((item) => ({ txHash: item.tx_hash, height: item.height })));
  }

  async balance(scriptHash: string): Promise<{ confirmed: number; unconfirmed: number }> {
    const unspent = await this.store.unspent(Buffer.from(scriptHash, 'hex'));
    const confirmed = unspent.reduce((sum, output) => sum + output.value, 0n);
    let unconfirmed = this.mempool.outputsFor(scriptHash).reduce((sum, output) => sum + output.value, 0n);
    for (const entry of this.mempool.entriesFor(scriptHash)) {
      for (const input of entry.inputs) {
        if (input.spent?.scriptHash.toString('hex') === scriptHash) unconfirmed -= input.spent.value;
      }
    }
    return { confirmed: Number(confirmed), unconfirmed: Number(unconfirmed) };
  }

  /** Confirmed outputs not spent in the mempool, then unspent mempool outputs (height 0). */
  async listUnspent(scriptHash: string): Promise<UnspentEntry[]> {
    const confirmed = (await this.store.unspent(Buffer.from(scriptHash, 'hex')))
      .map((output) => ({
        tx_hash: toDisplayHex(output.txid),
        tx_pos: output.vout,
        height: output.height,
        value: Number(output.value),
      }))
      .filter((output) => !this.mempool.isSpent(`${output.tx_hash}:${output.tx_pos}`));
    const unconfirmed = this.mempool
      .outputsFor(scriptHash)
      .filter((output) => !this.mempool.isSpent(`${output.txid}:${output.vout}`))
      .map((output) => ({ tx_hash: output.txid, tx_pos: output.vout, height: 0, value: Number(output.value) }));
    return [...confirmed, ...unconfirmed];
  }
}
