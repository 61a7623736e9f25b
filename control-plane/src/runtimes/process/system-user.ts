import { execFileSync } from 'node:child_process';

export interface RunAs {
  uid: number;
  gid: number;
  /** What login tools set for the user: HOME, USER, LOGNAME. */
  env: Record<string, string>;
}

const known = new Map<string, RunAs>();

/** The spawn options that make a child of root run as the system account `name` (e.g. `postgres`). */
export function runAs(name: string): RunAs {
  const cached = known.get(name);
  if (cached) return cached;
  let entry: string;
  try {
    entry = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`the system user ${name} does not exist (the Debian package that needs it creates it)`);
  }
  const [, , uid, gid, , home] = entry.split(':');
  const user = { uid: Number(uid), gid: Number(gid), env: { HOME: home || '/', USER: name, LOGNAME: name } };
  known.set(name, user);
  return user;
}
