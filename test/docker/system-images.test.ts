// The local postgres and redis images, run by testcontainers (independently of the runtime):
// their entry points must give a database and a cache that other containers can use.
import pg from 'pg';
import { Redis } from 'ioredis';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages } from '../../control-plane/src/images/build.js';
import { engine, recipesOf } from './support.js';

describe('postgres and redis images (testcontainers on Podman)', () => {
  const started: StartedTestContainer[] = [];
  let images: Awaited<ReturnType<typeof buildImages>>['images'];

  beforeAll(async () => {
    ({ images } = await buildImages({ docker: await engine(), images: recipesOf('postgres', 'redis') }));
  });
  afterAll(async () => {
    for (const container of started) await container.stop({ timeout: 5_000 });
  });

  async function run(
    image: string,
    command: string[],
    port: number,
    ready: RegExp,
  ): Promise<{ host: string; port: number }> {
    const container = await new GenericContainer(image)
      .withCommand(command)
      .withExposedPorts(port)
      .withWaitStrategy(Wait.forLogMessage(ready))
      .start();
    started.push(container);
    return { host: container.getHost(), port: container.getMappedPort(port) };
  }

  it('postgres creates its cluster on first start and accepts connections from outside its container', async () => {
    const server = await run(
      images.postgres!,
      ['-D', '/data/data', '-p', '5432', '-k', '/data/data', '-c', 'listen_addresses=0.0.0.0'],
      5432,
      /ready to accept connections/,
    );
    // the published port reaches it from the host bridge, not loopback: pg_hba must allow it
    const client = new pg.Client({ ...server, user: 'postgres', database: 'postgres' });
    await client.connect();
    const { rows } = await client.query<{ user: string }>('select current_user as user');
    await client.end();
    expect(rows).toEqual([{ user: 'postgres' }]);
  });

  it('redis answers from outside its container', async () => {
    const server = await run(
      images.redis!,
      ['--port', '6379', '--bind', '0.0.0.0', '--dir', '/data', '--save', ''],
      6379,
      /Ready to accept connections/,
    );
    const client = new Redis(server);
    await client.set('k', 'v');
    expect(await client.get('k')).toBe('v');
    client.disconnect();
  });
});
