// Confirmed transactions the indexer has fetched from the node, kept by txid while their block
// stays in the chain. Asking btcd costs a TLS connection per call; RGB wallets ask for the same
// confirmed transactions at every refresh (each transfer's history is checked again).

interface Entry {
  /** The block the tx was confirmed in when cached (internal-order hex): a reorg invalidates it. */
  blockHash: string;
  hex: string;
}

export class ConfirmedTxCache {
  /** A Map iterates in insertion order: the first entry is the least recently used. */
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = 5000) {}

  get(txid: string, blockHash: string): string | undefined {
    const entry = this.entries.get(txid);
    if (!entry || entry.blockHash !== blockHash) return undefined;
    this.entries.delete(txid);
    this.entries.set(txid, entry);
    return entry.hex;
  }

  set(txid: string, blockHash: string, hex: string): void {
    this.entries.delete(txid);
    this.entries.set(txid, { blockHash, hex });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
