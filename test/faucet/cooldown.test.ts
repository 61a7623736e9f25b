import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { Cooldowns } from '../../services/faucet/src/cooldown.js';
import { startRedis, type RunningServer } from '../support/infra.js';

describe('faucet cool-downs (real Redis)', () => {
  let server: RunningServer;
  let redis: Redis;

  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it('grants one claim per IP and per address, and says which one blocks and for how long', async () => {
    const cooldowns = new Cooldowns(redis, 900, 'test1');
    const granted = Date.now();
    expect((await cooldowns.acquire('10.0.0.1', 'bcrt1qa')).granted).toBe(true);
    const sameAddress = await cooldowns.acquire('10.0.0.2', 'bcrt1qa');
    expect(sameAddress).toMatchObject({ granted: false, blockedBy: ['address'] });
    const sameIp = await cooldowns.acquire('10.0.0.1', 'bcrt1qb');
    expect(sameIp).toMatchObject({ granted: false, blockedBy: ['ip'] });
    const both = await cooldowns.acquire('10.0.0.1', 'bcrt1qa');
    expect(both).toMatchObject({ granted: false, blockedBy: ['ip', 'address'] });
    if (both.granted) throw new Error('unreachable');
    // what is left of the 900 s since the grant, however long the calls took
    expect(both.retryAfterSeconds).toBeGreaterThanOrEqual(900 - Math.ceil((Date.now() - granted) / 1000));
    expect(both.retryAfterSeconds).toBeLessThanOrEqual(900);
    // A refused claim sets nothing: the other IP is still free for another address.
    expect((await cooldowns.acquire('10.0.0.2', 'bcrt1qc')).granted).toBe(true);
    expect(await redis.pttl('test1:ip:10.0.0.1')).toBeGreaterThanOrEqual(900_000 - (Date.now() - granted));
  });

  it('frees both keys on release, but never a later claim of the same keys', async () => {
    const cooldowns = new Cooldowns(redis, 900, 'test2');
    const first = await cooldowns.acquire('10.0.0.1', 'bcrt1qa');
    if (!first.granted) throw new Error('first claim refused');
    await first.release();
    const second = await cooldowns.acquire('10.0.0.1', 'bcrt1qa');
    expect(second.granted).toBe(true);
    await first.release(); // late, repeated release of the first claim
    expect((await cooldowns.acquire('10.0.0.1', 'bcrt1qa')).granted).toBe(false);
  });

  it('grants exactly one of many simultaneous claims for one address', async () => {
    const cooldowns = new Cooldowns(redis, 900, 'test3');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => cooldowns.acquire(`10.1.0.${i}`, 'bcrt1qsame')),
    );
    expect(results.filter((result) => result.granted)).toHaveLength(1);
  });

  it('expires after the cool-down, not before', async () => {
    const cooldowns = new Cooldowns(redis, 1, 'test4');
    const claimedBefore = Date.now();
    expect((await cooldowns.acquire('10.0.0.1', 'bcrt1qa')).granted).toBe(true);
    expect((await cooldowns.acquire('10.0.0.1', 'bcrt1qa')).granted).toBe(false);
    await waitFor(async () => (await cooldowns.acquire('10.0.0.1', 'bcrt1qa')).granted, {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'the cool-down to expire',
    });
    expect(Date.now() - claimedBefore).toBeGreaterThanOrEqual(1_000);
  });
});
