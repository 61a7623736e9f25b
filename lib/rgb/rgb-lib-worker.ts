// The one thread of a process that runs rgb-lib: it owns every wallet the process opens and runs
// their blocking calls one at a time, in the order they arrive.
import { parentPort } from 'node:worker_threads';
import { loadRgbLib, loadRgbLibNative, type BindingWallet } from './binding.js';
import type { WorkerReply, WorkerRequest } from './worker-protocol.js';

const rgbLib = loadRgbLib();
const native = loadRgbLibNative();
const wallets = new Map<number, BindingWallet>();

function walletOf(id: number): BindingWallet {
  const wallet = wallets.get(id);
  if (!wallet) throw new Error(`rgb-lib wallet ${id} is not open`);
  return wallet;
}

/**
 * The wrapper's failTransfers refuses every batch index: it reads "3" as a u8, which it does not
 * count as the i32 it asks for. The C library takes the index as text, so this calls it directly
 * with what the wrapper would pass.
 */
function failTransfers(wallet: BindingWallet, [online, batchTransferIdx, noAssetOnly, skipSync]: unknown[]): boolean {
  const handle = (wallet as unknown as { wallet: unknown }).wallet;
  const answer = native.rgblib_fail_transfers(
    handle,
    `{"id":${(online as { id: string }).id}}`,
    batchTransferIdx as string | null,
    noAssetOnly as boolean,
    skipSync as boolean,
  );
  return JSON.parse(answer) as boolean;
}

function handle(request: WorkerRequest): unknown {
  switch (request.op) {
    case 'module':
      if (request.fn === 'generateKeys') return rgbLib.generateKeys('Regtest', 'SegWitV0');
      if (request.fn === 'restoreKeys') return rgbLib.restoreKeys('Regtest', request.args[0]!, 'SegWitV0');
      return rgbLib.invoiceData(request.args[0]!);
    case 'open':
      wallets.set(
        request.wallet,
        new rgbLib.Wallet(new rgbLib.WalletData(request.walletData), new rgbLib.SinglesigKeys(request.keys)),
      );
      return null;
    case 'call': {
      const wallet = walletOf(request.wallet);
      if (request.method === 'failTransfers') return failTransfers(wallet, request.args);
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
