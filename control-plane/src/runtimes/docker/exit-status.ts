import { constants } from 'node:os';
import type { ExitStatus } from '../types.js';

/**
 * How a container ended, from its State. Its init (HostConfig.Init) exits 128+N when the service
 * died of signal N, and a container killed through the engine reports 137 (SIGKILL) the same way.
 */
export function containerExit(exitCode: number, oomKilled: boolean): ExitStatus {
  if (oomKilled) return { code: exitCode, signal: 'SIGKILL (out of memory)' };
  const signal =
    exitCode > 128 ? Object.entries(constants.signals).find(([, number]) => number === exitCode - 128)?.[0] : undefined;
  return signal ? { code: exitCode, signal } : { code: exitCode };
}
