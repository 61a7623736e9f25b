// The local postgres and redis images, run by testcontainers (independently of the runtime):
// their entry points must give a database and a cache that other containers can use.
import pg from 'pg';
import { Redis } from 'ioredis';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../control-plane/src/images/build.js';
import { engine } from './support.js';

describe('postgres and redis images (testcontainers on Podman)', () => {
  const started: StartedTestContainer[] = [];
  let images: Awaited<ReturnType<typeof buildImages>>['images'];

  beforeAll(async () => {
    ({ images } = await buildImages({ docker: await engine(), kinds: ['postgres', 'redis'] }));
  });
  afterAll(async () => {
    for (const container of started) await container.stop({ timeout: 5_000 });
  });

  it('postgres creates its cluster on first start and accepts connections from outside its container', async () => {
    const container = await new GenericContainer(images.postgres!)
      .withCommand(['-D', '/data/data', '-p', '5432', '-k', '/data/data', '-c', 'listen_addresses=0.0.0.0'])
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/))
      .start();
    started.push(container);
    // the published port reaches it from the host bridge, not loopback: pg_hba must allow it
    const client = new pg.Client({ host: container.getHost(), port: container.getMappedPort(5432), user: 'postgres', database: 'postgres' });
    await client.connect();
    const { rows } = await client.query<{ user: string }>('select current_user as user');
    await client.end();
    expect(rows).toEqual([{ user: 'postgres' }]);
  });

  it('redis answers from outside its container', async () => {
    const container = await new GenericContainer(images.redis!)
      .withCommand(['--port', '6379', '--bind', '0.0.0.0', '--dir', '/data', '--save', ''])
      .withExposedPorts(6379)
      .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
      .start();
    started.push(container);
    const client = new Redis({ host: container.getHost(), port: container.getMappedPort(6379) });
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    client.disconnect();
  });
});
