import { resolve } from 'node:path';

/** The folder of the control plane's state, labs and logs: REGLAB_HOME, or .reglab in the current folder. */
export function reglabHome(): string {
  return resolve(process.env.REGLAB_HOME ?? '.reglab');
}

export const daemonInfoFile = (home: string) => `${home}/daemon.json`;

export interface DaemonInfo {
  pid: number;
  url: string;
  startedAt: string;
}
