// Messages between the threads that use rgb-lib and the one worker thread that runs it.
import type { BindingKeys, BindingWalletData } from './binding.js';

export type WorkerRequest =
  /** rgb-lib's functions that need no wallet. */
  | { id: number; op: 'module'; fn: 'generateKeys' | 'restoreKeys' | 'invoiceData'; args: string[] }
  | { id: number; op: 'open'; wallet: number; walletData: BindingWalletData; keys: BindingKeys }
  | { id: number; op: 'call'; wallet: number; method: string; args: unknown[] }
  | { id: number; op: 'close'; wallet: number };

export type WorkerReply = { id: number; result: unknown } | { id: number; error: string };
