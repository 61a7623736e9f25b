import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pingRedis, saveRedis } from '../../control-plane/src/nodes/redis/server.js';
import { freePort } from '../../control-plane/src/util/ports.js';
import { startRedis, type RunningServer } from '../support/infra.js';

describe("the control plane's PING and SAVE of a Redis it manages", () => {
  let redis: RunningServer & { dir: string };

  beforeAll(async () => {
    redis = await startRedis();
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it('is answered by a real Redis: PONG, and SAVE writes dump.rdb into its folder', async () => {
    expect(await pingRedis(redis.url)).toBe(true);
    await saveRedis(redis.url);
    const dump = join(redis.dir, 'dump.rdb');
    expect(existsSync(dump)).toBe(true);
    expect(readFileSync(dump).subarray(0, 5).toString()).toBe('REDIS');
  });

  it('says what went wrong: nothing listening, an error reply, no answer in time', async () => {
    const port = await freePort();
    await expect(pingRedis(`redis://127.0.0.1:${port}`)).rejects.toThrow(/ECONNREFUSED/);
    const servers: Server[] = [];
    const serve = async (onData: (socket: import('node:net').Socket) => void) => {
      const server = createServer((socket) => socket.on('data', () => onData(socket)));
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
    };
    try {
      const refusing = await serve((socket) => socket.write('-MISCONF no disk\r\n'));
      await expect(saveRedis(refusing)).rejects.toThrow('answered SAVE with MISCONF no disk');
      const silent = await serve(() => undefined);
      await expect(pingRedis(silent)).rejects.toThrow('no answer to PING within 1000 ms');
      const hangingUp = await serve((socket) => socket.end());
      await expect(pingRedis(hangingUp)).rejects.toThrow('the connection closed before it answered PING');
    } finally {
      for (const server of servers) server.close();
    }
  });
});
