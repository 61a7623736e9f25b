import { Transaction, type Network } from 'bitcoinjs-lib';
import { scriptHashOf } from '../../../../lib/bitcoin/address.js';
import { notFound, invalid } from '../../../../lib/errors.js';
import { IndexerRpcError, type HistoryItem, type Indexer } from '../indexer.js';
import { headerInfo, isConfirmedHeight, parentTxids, reversedHex, toEsploraTx } from './convert.js';
import type { EsploraTx, EsploraUtxo, MerkleProof, Outspend, Stats, TxStatus } from './types.js';

/** Esplora's page sizes: up to 50 mempool transactions, then confirmed ones 25 at a time. */
export const MEMPOOL_PAGE = 50;
export const CHAIN_PAGE = 25;

type StatusOf = (height: number) => Promise<TxStatus>;

/**
 * Esplora views of addresses and transactions, built from an Electrum indexer's answers. Decoded
 * transactions are cached by txid (their bytes never change; their status is looked up each time).
 */
export class ChainData {
  private readonly transactions = new Map<string, Promise<Transaction>>();

  constructor(
    private readonly indexer: Indexer,
    private readonly network: Network,
    private readonly cacheSize = 10_000,
  ) {}

  transaction(txid: string): Promise<Transaction> {
    const cached = this.transactions.get(txid);
    if (cached) return cached;
    const loading = this.indexer.transactionHex(txid).then(
      (hex) => Transaction.fromHex(hex),
      (error: unknown) => {
        this.transactions.delete(txid);
        if (error instanceof IndexerRpcError)
          throw notFound(`transaction ${txid} is not known to the node or the indexer`);
        throw error;
      },
    );
    if (this.transactions.size >= this.cacheSize) this.transactions.delete(this.transactions.keys().next().value!);
    this.transactions.set(txid, loading);
    return loading;
  }

  /** A status lookup that asks the indexer once per block height within one answer. */
  private statusLookup(): StatusOf {
    const byHeight = new Map<number, Promise<TxStatus>>();
    return (height) => {
      if (!isConfirmedHeight(height)) return Promise.resolve({ confirmed: false });
      let status = byHeight.get(height);
      if (!status) {
        status = this.indexer.blockHeaderHex(height).then((hex) => {
          const { hash, time } = headerInfo(hex);
          return { confirmed: true, block_height: height, block_hash: hash, block_time: time };
        });
        byHeight.set(height, status);
      }
      return status;
    };
  }

  private async esploraTx(txid: string, status: Promise<TxStatus>): Promise<EsploraTx> {
    const [tx, known] = await Promise.all([this.transaction(txid), status]);
    const parents = new Map(
      await Promise.all(parentTxids(tx).map(async (parent) => [parent, await this.transaction(parent)] as const)),
    );
    return toEsploraTx(tx, parents, known, this.network);
  }

  private esploraTxs(items: HistoryItem[], statusOf: StatusOf = this.statusLookup()): Promise<EsploraTx[]> {
    return Promise.all(items.map((item) => this.esploraTx(item.tx_hash, statusOf(item.height))));
  }

  /** Esplora transactions confirmed in the block at `height`, in the order given. */
  txsOfBlock(txids: string[], height: number): Promise<EsploraTx[]> {
    const status = this.statusLookup()(height);
    return Promise.all(txids.map((txid) => this.esploraTx(txid, status)));
  }

  /** A transaction known to be in the mempool (its status is not looked up). */
  mempoolTx(txid: string): Promise<EsploraTx> {
    return this.esploraTx(txid, Promise.resolve({ confirmed: false }));
  }

  async tx(txid: string): Promise<EsploraTx> {
    return this.esploraTx(txid, this.txStatus(txid));
  }

  async txHex(txid: string): Promise<string> {
    return (await this.transaction(txid)).toHex();
  }

  /**
   * Where a transaction is: the history of one of its own scripts (an output's, else a spent
   * output's) lists it with its height. This needs nothing beyond the Electrum protocol.
   */
  async txStatus(txid: string): Promise<TxStatus> {
    const tx = await this.transaction(txid);
    const outputScripts = tx.outs
      .map((output) => output.script)
      .filter((script) => script.length > 0 && script[0] !== 0x6a);
    const spentScripts = async () =>
      tx.isCoinbase()
        ? []
        : Promise.all(
            tx.ins.map(async (input) => (await this.transaction(reversedHex(input.hash))).outs[input.index]!.script),
          );
    for (const scripts of [() => Promise.resolve(outputScripts), spentScripts]) {
      for (const script of await scripts()) {
        const entry = (await this.indexer.history(scriptHashOf(script))).find((item) => item.tx_hash === txid);
        if (entry) return this.statusLookup()(entry.height);
      }
    }
    return { confirmed: false };
  }

  async outspends(txid: string): Promise<Outspend[]> {
    const tx = await this.transaction(txid);
    const statusOf = this.statusLookup();
    return Promise.all(
      tx.outs.map(async (output, vout): Promise<Outspend> => {
        if (output.script.length === 0 || output.script[0] === 0x6a) return { spent: false };
        for (const item of await this.indexer.history(scriptHashOf(output.script))) {
          if (item.tx_hash === txid) continue;
          const spender = await this.transaction(item.tx_hash);
          const vin = spender.ins.findIndex((input) => input.index === vout && reversedHex(input.hash) === txid);
          if (vin >= 0) return { spent: true, txid: item.tx_hash, vin, status: await statusOf(item.height) };
        }
        return { spent: false };
      }),
    );
  }

  async merkleProof(txid: string): Promise<MerkleProof> {
    const status = await this.txStatus(txid);
    if (!status.confirmed) throw notFound(`transaction ${txid} is not confirmed yet, so it has no Merkle proof`);
    return this.indexer.merkleProof(txid, status.block_height!);
  }

  /** Esplora's address/scripthash object stats: outputs paid to the script and inputs spending them. */
  async stats(scriptHash: string): Promise<{ chain_stats: Stats; mempool_stats: Stats }> {
    const history = await this.indexer.history(scriptHash);
    const txs = await Promise.all(history.map(async (item) => ({ item, tx: await this.transaction(item.tx_hash) })));
    const funded = new Map<string, bigint>();
    const empty = (): Stats => ({
      funded_txo_count: 0,
      funded_txo_sum: 0,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 0,
    });
    const chain = empty();
    const mempool = empty();
    for (const { item, tx } of txs) {
      const stats = isConfirmedHeight(item.height) ? chain : mempool;
      stats.tx_count++;
      tx.outs.forEach((output, vout) => {
        if (scriptHashOf(output.script) !== scriptHash) return;
        funded.set(`${item.tx_hash}:${vout}`, BigInt(output.value));
        stats.funded_txo_count++;
        stats.funded_txo_sum += Number(output.value);
      });
    }
    // A spend of the script's output is always a tx of its history, as is the tx that funded it.
    for (const { item, tx } of txs) {
      const stats = isConfirmedHeight(item.height) ? chain : mempool;
      for (const input of tx.ins) {
        const value = funded.get(`${reversedHex(input.hash)}:${input.index}`);
        if (value === undefined) continue;
        stats.spent_txo_count++;
        stats.spent_txo_sum += Number(value);
      }
    }
    return { chain_stats: chain, mempool_stats: mempool };
  }

  async utxos(scriptHash: string): Promise<EsploraUtxo[]> {
    const statusOf = this.statusLookup();
    const unspent = await this.indexer.listUnspent(scriptHash);
    return Promise.all(
      unspent.map(async (item) => ({
        txid: item.tx_hash,
        vout: item.tx_pos,
        value: item.value,
        status: await statusOf(item.height),
      })),
    );
  }

  private async splitHistory(scriptHash: string): Promise<{ mempool: HistoryItem[]; confirmed: HistoryItem[] }> {
    const history = await this.indexer.history(scriptHash);
    // The indexer lists confirmed history oldest first; Esplora lists newest first.
    const confirmed = history
      .filter((item) => isConfirmedHeight(item.height))
      .reverse()
      .sort((a, b) => b.height - a.height);
    const mempool = history.filter((item) => !isConfirmedHeight(item.height));
    return { mempool, confirmed };
  }

  /** GET /address/:a/txs: up to 50 mempool transactions, then the newest 25 confirmed ones. */
  async txs(scriptHash: string): Promise<EsploraTx[]> {
    const { mempool, confirmed } = await this.splitHistory(scriptHash);
    return this.esploraTxs([...mempool.slice(0, MEMPOOL_PAGE), ...confirmed.slice(0, CHAIN_PAGE)]);
  }

  /** GET /address/:a/txs/chain[/:last_seen_txid]: 25 confirmed transactions older than last_seen. */
  async chainTxs(scriptHash: string, lastSeenTxid?: string): Promise<EsploraTx[]> {
    const { confirmed } = await this.splitHistory(scriptHash);
    let start = 0;
    if (lastSeenTxid) {
      const index = confirmed.findIndex((item) => item.tx_hash === lastSeenTxid);
      if (index < 0)
        throw invalid(
          'UNKNOWN_LAST_SEEN',
          `transaction ${lastSeenTxid} is not in the confirmed history of this address; page with a txid from the previous page`,
        );
      start = index + 1;
    }
    return this.esploraTxs(confirmed.slice(start, start + CHAIN_PAGE));
  }

  async mempoolTxs(scriptHash: string): Promise<EsploraTx[]> {
    const { mempool } = await this.splitHistory(scriptHash);
    return this.esploraTxs(mempool.slice(0, MEMPOOL_PAGE));
  }
}
