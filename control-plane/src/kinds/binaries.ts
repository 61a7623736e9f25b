import { homedir } from 'node:os';
import { join } from 'node:path';

export type NodeBinary = 'btcd' | 'btcctl' | 'lnd' | 'lncli';

/** Folder of the pinned node binaries built by scripts/build-nodes.sh. */
export function nodeBinDir(): string {
  return process.env.REGLAB_BIN_DIR ?? join(homedir(), '.cache', 'reglab', 'bin');
}

export function nodeBinary(name: NodeBinary): string {
  return join(nodeBinDir(), name);
}
