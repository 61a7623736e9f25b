import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobQueues } from '../../control-plane/src/jobs.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import { startRedis, type RunningServer } from '../support/infra.js';

const noLab = (): LabSession => {
  throw new Error('no lab in this test');
};

describe('the job queues on Redis', () => {
  let redis: RunningServer;
  let client: Redis;
  /** Connections to the Redis other than this test's own. */
  const otherClients = async () => ((await client.client('LIST')) as string).trim().split('\n').length - 1;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(redis.url);
  });

  afterAll(async () => {
    client?.disconnect();
    await redis?.stop();
  });

  it("on the control plane's own Redis, started empty, ask for it and connect only when a call needs them", async () => {
    let redisAsked = 0;
    const jobs = new JobQueues(
      async () => {
        redisAsked += 1;
        return redis.url;
      },
      noLab,
      () => undefined,
      true,
    );
    try {
      expect(jobs.mayHoldWork).toBe(false);
      expect(await jobs.autoMiningSeconds('lab')).toBe(0);
      await jobs.setAutoMining('lab', 0);
      expect(redisAsked).toBe(0);
      expect(await otherClients()).toBe(0);
      expect(await jobs.get('mining-not-a-job')).toBeUndefined();
      expect(redisAsked).toBe(1);
      expect(await otherClients()).toBeGreaterThan(0);
      expect(jobs.mayHoldWork).toBe(true);
    } finally {
      await jobs.close();
    }
    expect(await otherClients()).toBe(0);
  });

  it('on a Redis that outlives the control plane, find the schedules an earlier one set', async () => {
    const earlier = new JobQueues(
      async () => redis.url,
      noLab,
      () => undefined,
    );
    try {
      await earlier.setAutoMining('kept', 30);
    } finally {
      await earlier.close();
    }
    const later = new JobQueues(
      async () => redis.url,
      noLab,
      () => undefined,
    );
    try {
      expect(later.mayHoldWork).toBe(true);
      expect(await later.autoMiningSeconds('kept')).toBe(30);
      await later.setAutoMining('kept', 0);
      expect(await later.autoMiningSeconds('kept')).toBe(0);
    } finally {
      await later.close();
    }
  });
});
