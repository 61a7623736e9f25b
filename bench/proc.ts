// Resident memory and CPU time of a process and its descendants, from /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';

function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/** VmRSS in bytes, or 0 for a process that is gone. */
export function rssBytes(pid: number): number {
  const kib = readProc(pid, 'status')?.match(/^VmRSS:\s+(\d+) kB/m)?.[1];
  return kib ? Number(kib) * 1024 : 0;
}

/**
 * Pss in bytes (proportional set size, /proc/PID/smaps_rollup): each shared page counted as its
 * share among the processes that map it, so PostgreSQL's shared memory or a shared library is not
 * counted once per process as RSS counts it. 0 for a process that is gone or not readable.
 */
export function pssBytes(pid: number): number {
  const kib = readProc(pid, 'smaps_rollup')?.match(/^Pss:\s+(\d+) kB/m)?.[1];
  return kib ? Number(kib) * 1024 : 0;
}

/** The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses),
 * so index 0 is field 3 (state), 1 the ppid, 11 utime, 12 stime, 13 cutime, 14 cstime. */
function statFields(pid: number): string[] | null {
  const stat = readProc(pid, 'stat');
  return stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : null;
}

function children(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (!ppid) continue;
    byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(entry)]);
  }
  return byParent;
}

/** pid and every process below it. */
export function treePids(pid: number): number[] {
  const byParent = children();
  const pids: number[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    pids.push(p);
    stack.push(...(byParent.get(p) ?? []));
  }
  return pids;
}

function sumOverTree(pid: number, of: (pid: number) => number): number {
  return treePids(pid).reduce((total, p) => total + of(p), 0);
}

/** The RSS of pid and of every process below it (e.g. PostgreSQL's postmaster and its backends). */
export function treeRssBytes(pid: number): number {
  return sumOverTree(pid, rssBytes);
}

/** The PSS of pid and of every process below it. */
export function treePssBytes(pid: number): number {
  return sumOverTree(pid, pssBytes);
}

/** How many processes pid's tree holds (pid itself included). */
export function treeSize(pid: number): number {
  return sumOverTree(pid, () => 1);
}

/** Clock ticks per second of /proc's times (USER_HZ), 100 on Linux. */
const TICKS_PER_SECOND = 100;

/** CPU time used so far by pid itself (all its threads), in ms. */
export function ownCpuMs(pid: number): number {
  const f = statFields(pid);
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / TICKS_PER_SECOND : 0;
}

/** CPU time used so far by pid, every live process below it and the children they reaped, in ms. */
export function treeCpuMs(pid: number): number {
  return sumOverTree(pid, (p) => {
    const f = statFields(p);
    return f ? ((Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 1000) / TICKS_PER_SECOND : 0;
  });
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
