// A lab's PostgreSQL cluster is a copy of the machine's template cluster, which initdb makes once
// in reglab's cache (REGLAB_CACHE_DIR, a folder of this test's own here): two clusters made one after
// the other are copies of the same one, each its own folder, and a copy runs and answers queries.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { initPostgresCluster, postgresBinDir } from '../../control-plane/src/nodes/postgres/server.js';
import { startPostgres } from '../support/infra.js';

const machineCache = process.env.REGLAB_CACHE_DIR;
const cache = mkdtempSync(join(tmpdir(), 'reglab-pg-cache-'));
process.env.REGLAB_CACHE_DIR = cache;
const labs = mkdtempSync(join(tmpdir(), 'reglab-pg-labs-'));
chmodSync(labs, 0o755); // the postgres system user must reach the data folders inside

/** The identifier initdb gives a cluster: the same in every copy of one cluster. */
const systemIdentifier = (dataDir: string) =>
  /Database system identifier:\s+(\d+)/.exec(
    execFileSync(join(postgresBinDir(), 'pg_controldata'), ['-D', dataDir], { encoding: 'utf8' }),
  )?.[1];

describe("a lab's PostgreSQL cluster, from the machine's template", () => {
  afterAll(() => {
    if (machineCache === undefined) delete process.env.REGLAB_CACHE_DIR;
    else process.env.REGLAB_CACHE_DIR = machineCache;
    rmSync(cache, { recursive: true, force: true });
    rmSync(labs, { recursive: true, force: true });
  });

  it('makes the template once and gives each lab a copy of it in a folder of its own, on loopback', async () => {
    const first = join(labs, 'first', 'data');
    const second = join(labs, 'second', 'data');
    await initPostgresCluster(first);
    await initPostgresCluster(second);

    expect(readdirSync(join(cache, 'postgres'))).toHaveLength(1);
    expect(systemIdentifier(first)).toMatch(/^\d+$/);
    expect(systemIdentifier(second)).toBe(systemIdentifier(first));
    for (const dataDir of [first, second]) {
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      expect(readFileSync(join(dataDir, 'postgresql.auto.conf'), 'utf8')).toContain("listen_addresses = '127.0.0.1'");
    }
  });

  it('runs a copy that answers queries and keeps what it is given', async () => {
    const server = await startPostgres();
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query('create table kept (amount int)');
        await client.query('insert into kept values (21)');
        expect((await client.query('select amount from kept')).rows).toEqual([{ amount: 21 }]);
      } finally {
        await client.end();
      }
    } finally {
      await server.stop();
    }
    expect(readdirSync(join(cache, 'postgres'))).toHaveLength(1);
  });
});
