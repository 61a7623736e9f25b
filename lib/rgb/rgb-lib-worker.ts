// The one thread of a process that runs rgb-lib: it owns every wallet the process opens and runs
// their blocking calls one at a time, in the order they arrive.
import { parentPort } from 'node:worker_threads';
import { loadRgbLib, type BindingWallet } from './binding.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const rgbLib = loadRgbLib();
const wallets = new Map<number, BindingWallet>();

function walletOf(id: number): BindingWallet {
  const wallet = wallets.get(id);
  if (!wallet) throw new Error(`rgb-lib wallet ${id} is not open`);
  return wallet;
}

function handle(request: WorkerRequest): unknown {
  switch (request.op) {
    case 'module':
      if (request.fn === 'generateKeys') return rgbLib.generateKeys('Regtest', 'SegWitV0');
      if (request.fn === 'restoreKeys') return rgbLib.restoreKeys('Regtest', request.args[0]!, 'SegWitV0');
      return rgbLib.invoiceData(request.args[0]!);
    case 'open':
      wallets.set(request.wallet, new rgbLib.Wallet(new rgbLib.WalletData(request.walletData), new rgbLib.SinglesigKeys(request.keys)));
      return null;
    case 'call': {
      const wallet = walletOf(request.wallet);
      const method = wallet[request.method];
      if (typeof method !== 'function') throw new Error(`rgb-lib's wallet has no method ${request.method}`);
      return method.apply(wallet, request.args);
    }
    case 'close':
      walletOf(request.wallet).drop();
      wallets.delete(request.wallet);
      return null;
  }
}

parentPort!.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    reply = { id: request.id, result: handle(request) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
