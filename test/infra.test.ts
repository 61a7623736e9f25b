import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { startPostgres, startRedis, type RunningServer } from './support/infra.js';
import { isListening } from '../control-plane/src/util/ports.js';

describe('managed PostgreSQL and Redis', () => {
  let postgres: RunningServer;
  let redis: RunningServer;
  beforeAll(async () => {
    [postgres, redis] = await Promise.all([startPostgres(), startRedis()]);
  });
  afterAll(async () => {
    await Promise.all([postgres?.stop(), redis?.stop()]);
  });

  it('serves SQL on its loopback port', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    await client.connect();
    const { rows } = await client.query('select 40 + 2 as answer');
    await client.end();
    expect(rows[0].answer).toBe(42);
  });

  it('serves Redis commands', async () => {
    const client = new Redis(redis.url);
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    client.disconnect();
  });

  it('leaves no listening port after stop', async () => {
    const { port } = postgres;
    await postgres.stop();
    expect(await isListening(port)).toBe(false);
  });
});
