// Entry point of the wallet thread: runs each request of the HTTP thread on rgb-lib, in order, and
// answers with the result or the error's text.
import { parentPort } from 'node:worker_threads';
import { loadRgbLib } from './binding.js';
import { walletOps } from './wallet-ops.js';
import type { WalletReply, WalletRequest } from './wallet-thread.js';

if (!parentPort) throw new Error('wallet/worker.ts runs as a worker thread of the rgb node');
const port = parentPort;
const ops = walletOps(loadRgbLib());

port.on('message', ({ id, op, args }: WalletRequest) => {
  let reply: WalletReply;
  try {
    const run = ops[op] as (...values: unknown[]) => unknown;
    reply = { id, result: run(...args) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
