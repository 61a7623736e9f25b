import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The folder of the control plane's state, labs and logs: REGLAB_HOME, or .reglab in the current folder. */
export function reglabHome(): string {
  return resolve(process.env.REGLAB_HOME ?? '.reglab');
}

export const daemonInfoFile = (home: string) => `${home}/daemon.json`;

export interface DaemonInfo {
  pid: number;
  /** Where this machine reaches the API (loopback). */
  url: string;
  /** The address it listens on. */
  listen: string;
  startedAt: string;
  /** Set when it listens beyond loopback; the file is readable by its owner only. */
  token?: string;
}

/** Folder of the pinned node binaries built by scripts/build-nodes.sh (and build-ldk.sh). */
export function nodeBinDir(): string {
  return process.env.REGLAB_BIN_DIR ?? join(homedir(), '.cache', 'reglab', 'bin');
}

export function nodeBinary(name: string): string {
  return join(nodeBinDir(), name);
}
