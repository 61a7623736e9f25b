// Real PostgreSQL and Redis servers for tests: each on a free loopback port, in a temp folder,
// stopped by the test that started them.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  initPostgresCluster,
  pingPostgres,
  postgresLaunch,
  postgresUrl,
} from '../../control-plane/src/nodes/postgres/server.js';
import { pingRedis, redisLaunch, redisUrl } from '../../control-plane/src/nodes/redis/server.js';
import { startDetached, stopProcessGroup } from '../../control-plane/src/runtimes/process/child.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<RunningServer & { createDatabase(name: string): Promise<string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-pg-'));
  chmodSync(dir, 0o755); // the postgres system user must reach the data folder inside
  const dataDir = join(dir, 'data');
  await initPostgresCluster(dataDir);
  const port = await freePort();
  const launch = postgresLaunch(dataDir, port);
  const pid = startDetached(launch, join(dir, 'postgres.log'));
  const url = postgresUrl(port);
  await waitFor(() => pingPostgres(url), {
    timeoutMs: 30_000,
    what: `PostgreSQL on port ${port} (log: ${dir}/postgres.log)`,
  });
  return {
    url,
    port,
    async createDatabase(name: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`create database "${name}"`);
      await client.end();
      return postgresUrl(port, name);
    },
    async stop() {
      await stopProcessGroup(pid, 10_000, launch.stopSignal);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `dir`: its folder, where SAVE writes dump.rdb. */
export async function startRedis(): Promise<RunningServer & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-redis-'));
  const port = await freePort();
  const pid = startDetached(redisLaunch(dir, port), join(dir, 'redis.log'));
  const url = redisUrl(port);
  await waitFor(() => pingRedis(url), { timeoutMs: 15_000, what: `Redis on port ${port}` });
  return {
    url,
    port,
    dir,
    async stop() {
      await stopProcessGroup(pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
