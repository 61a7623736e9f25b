// A snapshot's chain, as blocks: btcd deletes a regtest chain whenever it starts (its
// removeRegressionDB), so its data folder cannot be kept. The blocks are read from the running
// node when a snapshot is saved; when it is restored they become the lab's chain journal, which
// the freshly started node is given back like any restarted chain node (a lab's blocks are few and
// quick to submit: bench:snapshot), followed by the transactions that were in its mempool.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';
import type { ChainJournal } from '../lab/chain-journal.js';

interface ChainFile {
  height: number;
  tipHash: string;
  /** Raw blocks from height 1 to `height`. */
  blocks: string[];
  /** Raw transactions that were unconfirmed. */
  mempool: string[];
}

const BATCH = 200;
const fileIn = (snapshotDir: string) => join(snapshotDir, 'chain.json');

/** Writes the node's blocks and mempool to the snapshot folder; returns the height and the bytes written. */
export async function exportChain(
  chain: RpcChainDriver,
  snapshotDir: string,
): Promise<{ height: number; bytes: number }> {
  const height = await chain.getBlockCount();
  const blocks: string[] = [];
  for (let from = 1; from <= height; from += BATCH) {
    const heights = Array.from({ length: Math.min(BATCH, height - from + 1) }, (_, index) => from + index);
    blocks.push(...(await chain.getBlocksAtHeights(heights)).map((block) => block.hex));
  }
  const mempool = await Promise.all((await chain.getRawMempool()).map((txid) => chain.getRawTransactionHex(txid)));
  const file: ChainFile = { height, tipHash: await chain.getBlockHash(height), blocks, mempool };
  const text = JSON.stringify(file);
  await writeFile(fileIn(snapshotDir), text, { mode: 0o600 });
  return { height, bytes: Buffer.byteLength(text) };
}

const readChainFile = async (snapshotDir: string) =>
  JSON.parse(await readFile(fileIn(snapshotDir), 'utf8')) as ChainFile;

/** Makes the snapshot's blocks the lab's chain journal, which the chain node is given when it starts (nodes/btcd). */
export async function restoreChainJournal(journal: ChainJournal, snapshotDir: string): Promise<void> {
  const file = await readChainFile(snapshotDir);
  await journal.replace(file.blocks);
  const tip = await journal.tip();
  if ((tip?.height ?? 0) !== file.height || (tip && tip.hash !== file.tipHash))
    throw new Error(
      `snapshot ${snapshotDir} is damaged: its chain.json holds ${tip?.height ?? 0} whole blocks ending at ${tip?.hash ?? 'none'}, not ${file.height} ending at ${file.tipHash}`,
    );
}

/** Sends the snapshot's unconfirmed transactions again, to a chain node that has its blocks. */
export async function restoreMempool(chain: RpcChainDriver, snapshotDir: string): Promise<void> {
  await resubmit(chain, (await readChainFile(snapshotDir)).mempool);
}

/** Unconfirmed transactions may spend each other: what fails is tried again while anything gets in. */
async function resubmit(chain: RpcChainDriver, transactions: string[]): Promise<void> {
  let waiting = transactions;
  while (waiting.length > 0) {
    const failed: string[] = [];
    for (const hex of waiting) await chain.sendRawTransaction(hex).catch(() => failed.push(hex));
    if (failed.length === waiting.length) return; // what is left is no longer valid (or already in)
    waiting = failed;
  }
}
