import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ProcessLaunch } from '../../runtimes/process/child.js';
import { runAs } from '../../runtimes/process/system-user.js';

/** Where Debian's postgresql package puts the server binaries. */
export function postgresBinDir(): string {
  const fromEnv = process.env.REGLAB_PG_BIN;
  if (fromEnv) return fromEnv;
  for (const version of ['17', '16', '15']) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, 'postgres'))) return dir;
  }
  throw new Error(
    'PostgreSQL server binaries not found: install them with `apt-get install postgresql` or set REGLAB_PG_BIN',
  );
}

const runsAsRoot = () => process.getuid?.() === 0;
const SYSTEM_USER = 'postgres';

/**
 * The first folder above `dir` that `user` may not pass through (no search bit for it), if any:
 * a checkout under /root (mode 0700) or a REGLAB_HOME made by `mktemp -d`.
 */
export function closedAncestor(dir: string, user: { uid: number; gid: number }): string | undefined {
  for (let folder = dirname(resolve(dir)); ; folder = dirname(folder)) {
    if ((statSync(folder).mode & searchBitOf(folder, user)) === 0) return folder;
    if (folder === dirname(folder)) return undefined;
  }
}

/** The search bit that applies to `user` on `folder`: its owner's, its group's or the others'. */
function searchBitOf(folder: string, user: { uid: number; gid: number }): number {
  const { uid, gid } = statSync(folder);
  return uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
}

/**
 * Lets the postgres user pass through every folder above `dataDir` (the search bit that applies to
 * it, for others as a rule; not the right to list), saying so on stderr: a checkout under /root or in a
 * `mktemp -d` folder (mode 0700) keeps it out, and PostgreSQL refuses to run as root.
 */
function letThrough(dataDir: string, user: { uid: number; gid: number }): void {
  for (let closed = closedAncestor(dataDir, user); closed; closed = closedAncestor(dataDir, user)) {
    const mode = statSync(closed).mode & 0o7777;
    try {
      chmodSync(closed, mode | searchBitOf(closed, user));
    } catch (error) {
      throw new Error(
        `PostgreSQL runs as the ${SYSTEM_USER} user, which cannot reach ${dataDir}: ${closed} lets no other user through and could not be opened (${(error as Error).message}); keep the lab in a folder every user can pass through (REGLAB_HOME)`,
      );
    }
    process.stderr.write(
      `reglab: ${closed} let no other user through (mode ${mode.toString(8).padStart(4, '0')}); the lab's PostgreSQL runs as the ${SYSTEM_USER} user and must pass: added the search bit that lets it through (o+x for others), not the right to list it\n`,
    );
  }
}

/**
 * Creates a throw-away cluster in `dataDir` (once) with trust auth on loopback: a lab database
 * holds test coins only, and the lab records the URL for its services.
 */
export function initPostgresCluster(dataDir: string): void {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // 1 MiB WAL segments instead of 16: a lab writes little, and its data folder (copied into every snapshot)
  // stays small
  const args = ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync', '--wal-segsize=1'];
  const user = runsAsRoot() ? runAs(SYSTEM_USER) : undefined;
  if (user) {
    letThrough(dataDir, user);
    execFileSync('chown', ['-R', `${SYSTEM_USER}:${SYSTEM_USER}`, dataDir]);
  }
  execFileSync(join(postgresBinDir(), 'initdb'), args, {
    stdio: 'pipe',
    ...(user ? { uid: user.uid, gid: user.gid, env: { ...process.env, ...user.env } } : {}),
  });
  // Without fsync a commit still reaches the kernel before it is answered, so a killed Postgres
  // (not a crashed machine) keeps it; synchronous_commit must stay on for that (off, the commits
  // answered last died with the process: test/control-plane/supervision.test.ts).
  writeFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    "listen_addresses = '127.0.0.1'\nfsync = off\nfull_page_writes = off\nmax_connections = 100\nshared_buffers = 16MB\nmin_wal_size = 2MB\n",
  );
}

/**
 * PostgreSQL's arguments for the cluster in `dataDir` on `port`, wherever its binary is (this
 * machine's, or an image's: a control plane in a pod has none of its own).
 */
export function postgresArgs(dataDir: string, port: number): string[] {
  // the socket goes to the data folder: /var/run/postgresql may not exist or be writable
  // no logical replication launcher (nothing of a lab replicates): a process and its memory fewer
  return ['-D', dataDir, '-p', String(port), '-k', dataDir, '-c', 'max_logical_replication_workers=0'];
}

/** The user a PostgreSQL started by root runs as (it refuses root). */
export const postgresUser = () => (runsAsRoot() ? SYSTEM_USER : undefined);

/** Its fast shutdown: SIGTERM waits for every client to leave. */
export const POSTGRES_STOP_SIGNAL: NodeJS.Signals = 'SIGINT';

export function postgresLaunch(dataDir: string, port: number): ProcessLaunch {
  return {
    command: join(postgresBinDir(), 'postgres'),
    args: postgresArgs(dataDir, port),
    user: postgresUser(),
    stopSignal: POSTGRES_STOP_SIGNAL,
  };
}

export function postgresUrl(port: number, database = 'postgres'): string {
  return `postgres://postgres@127.0.0.1:${port}/${database}`;
}

/**
 * True when PostgreSQL answers a query at `url`; throws while it cannot be reached or does not answer
 * within a second. The client library is loaded with the first ping, not with the control plane.
 */
export async function pingPostgres(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}
