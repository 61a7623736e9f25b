import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { BUNDLED_PROGRAMS, builtProgram } from '../../lib/programs.js';
import { projectRoot } from '../../lib/project-root.js';

/** The folder of the control plane's state, labs and logs: REGLAB_HOME, or .reglab in the current folder. */
export function reglabHome(): string {
  return resolve(process.env.REGLAB_HOME ?? '.reglab');
}

export const daemonInfoFile = (home: string) => `${home}/daemon.json`;

export interface DaemonAddress {
  pid: number;
  /** Where this machine reaches the API (loopback). */
  url: string;
  /** The address it listens on. */
  listen: string;
  startedAt: string;
  /** Set when it listens beyond loopback; the file is readable by its owner only. */
  token?: string;
  /** When the compiled reglab it runs was built (builtAt()). */
  built?: string;
}

/**
 * Set on a control plane its keeper (control-plane/keeper.sh) started again after the last one ended without its stop.
 */
export interface ControlPlaneRestart {
  /** Restarts by this keeper. */
  restarts: number;
  /** How and when the last one ended: "killed by signal 9 at 2026-11-27T07:10:00Z". */
  lastEnded: string;
}

export type DaemonInfo = DaemonAddress & Partial<ControlPlaneRestart>;

/** The daemon.json of `home` as it is: a running control plane's, or one that ended without its stop left it. */
export function readDaemonFile(home: string): DaemonInfo | undefined {
  try {
    return JSON.parse(readFileSync(daemonInfoFile(home), 'utf8')) as DaemonInfo;
  } catch {
    return undefined;
  }
}

/** Folder of the pinned node binaries built by scripts/build-nodes.sh (and build-ldk.sh). */
export function nodeBinDir(): string {
  return process.env.REGLAB_BIN_DIR ?? join(homedir(), '.cache', 'reglab', 'bin');
}

export function nodeBinary(name: string): string {
  return join(nodeBinDir(), name);
}

/**
 * When reglab was last built (`npm run build` writes its bundles again), or undefined when it is
 * not: a control plane records the build it started from, so that a CLI of a later build can say
 * that the control plane still runs the one before.
 */
export function builtAt(): string | undefined {
  const cli = builtProgram(join(projectRoot(), 'dist'), BUNDLED_PROGRAMS.cli);
  try {
    return cli === undefined ? undefined : statSync(cli).mtime.toISOString();
  } catch {
    return undefined;
  }
}
