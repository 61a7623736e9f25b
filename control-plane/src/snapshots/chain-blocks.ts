// A snapshot's chain, as blocks: btcd deletes a regtest chain whenever it starts (its
// removeRegressionDB), so its data folder cannot be kept. The blocks are read from the running
// node when a snapshot is saved, and submitted again in order, in batches, to the freshly started
// node when it is restored (432 blocks took 0.2 s on a 2-core machine), followed by the
// transactions that were in its mempool.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RpcChainDriver } from '../../../lib/chain/rpc-driver.js';

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
export async function exportChain(chain: RpcChainDriver, snapshotDir: string): Promise<{ height: number; bytes: number }> {
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

/** Submits the snapshot's blocks to a node that starts from the genesis block, then its unconfirmed transactions. */
export async function replayChain(chain: RpcChainDriver, snapshotDir: string): Promise<void> {
  const file = JSON.parse(await readFile(fileIn(snapshotDir), 'utf8')) as ChainFile;
  for (let from = 0; from < file.blocks.length; from += BATCH) {
    const answers = await chain.submitBlocks(file.blocks.slice(from, from + BATCH));
    const refused = answers.findIndex((answer) => answer !== null && answer !== 'duplicate');
    if (refused >= 0) throw new Error(`the chain node refused block ${from + refused + 1} of the snapshot: ${answers[refused]}`);
  }
  const tipHash = await chain.getBestBlockHash();
  if (tipHash !== file.tipHash) throw new Error(`after replaying the snapshot's ${file.height} blocks the chain's tip is ${tipHash}, not the snapshot's ${file.tipHash}`);
  await resubmit(chain, file.mempool);
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
