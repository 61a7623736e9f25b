// Resident memory of a process and its descendants, from /proc (Linux).
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

function children(): Map<number, number[]> {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // The fields after the command name (which may hold spaces and parentheses): state, ppid, ...
    const stat = readProc(Number(entry), 'stat');
    const ppid = Number(stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!ppid) continue;
    byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(entry)]);
  }
  return byParent;
}

/** The RSS of pid and of every process below it (e.g. a runuser wrapper and its program). */
export function treeRssBytes(pid: number): number {
  const byParent = children();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    total += rssBytes(p);
    stack.push(...(byParent.get(p) ?? []));
  }
  return total;
}

export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
