import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { reglabCacheDir } from '../../images/cache.js';
import type { ProcessLaunch } from '../../runtimes/process/child.js';
import { type RunAs, runAs } from '../../runtimes/process/system-user.js';

const run = promisify(execFile);

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
 * initdb's arguments but the folder: trust auth (a lab database holds test coins only, and the lab
 * records the URL for its services); 1 MiB WAL segments instead of 16, as a lab writes little and
 * its data folder (copied into every snapshot) stays small.
 */
const INITDB_ARGS = ['-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync', '--wal-segsize=1'];

/**
 * Creates a throw-away cluster in `dataDir` (once): a copy of the machine's template cluster, made
 * by initdb the first time (templateCluster), listening on loopback only.
 */
export async function initPostgresCluster(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const user = runsAsRoot() ? runAs(SYSTEM_USER) : undefined;
  const template = await templateCluster(user);
  mkdirSync(dirname(dataDir), { recursive: true });
  if (user) letThrough(dataDir, user);
  // -a keeps the template's modes and owner: PostgreSQL wants its folder 0700, its user's
  await run('cp', ['-a', '-T', template, dataDir]);
  // Without fsync a commit still reaches the kernel before it is answered, so a killed Postgres
  // (not a crashed machine) keeps it; synchronous_commit must stay on for that (off, the commits
  // answered last died with the process: test/control-plane/supervision.test.ts).
  writeFileSync(
    join(dataDir, 'postgresql.auto.conf'),
    "listen_addresses = '127.0.0.1'\nfsync = off\nfull_page_writes = off\nmax_connections = 100\nshared_buffers = 16MB\nmin_wal_size = 2MB\n",
  );
}

/**
 * The machine's template cluster for this initdb and user, in reglab's cache: made by initdb once,
 * then copied for each lab, which takes a fraction of initdb's time and does not start a process
 * per lab. initdb runs in a folder of the system's temporary one (the postgres user may not pass
 * through the cache's folders); the cluster made is moved into the cache whole, and a template
 * another control plane made meanwhile is kept.
 */
async function templateCluster(user: RunAs | undefined): Promise<string> {
  const initdb = join(postgresBinDir(), 'initdb');
  const key = createHash('sha256')
    .update(JSON.stringify([initdb, statSync(initdb).mtimeMs, INITDB_ARGS, process.getuid?.()]))
    .digest('hex')
    .slice(0, 16);
  const template = join(reglabCacheDir(), 'postgres', key);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const scratch = mkdtempSync(join(tmpdir(), 'reglab-initdb-'));
  try {
    const made = join(scratch, 'data');
    if (user) {
      chownSync(scratch, user.uid, user.gid);
      letThrough(made, user);
    }
    await run(
      initdb,
      ['-D', made, ...INITDB_ARGS],
      user ? { uid: user.uid, gid: user.gid, env: { ...process.env, ...user.env } } : {},
    );
    mkdirSync(dirname(template), { recursive: true });
    const partial = `${template}.partial.${process.pid}`;
    await run('cp', ['-a', '-T', made, partial]);
    try {
      renameSync(partial, template);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another control plane's is there
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return template;
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
