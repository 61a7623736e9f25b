// An ldk node on the docker runtime: reglab-ldk from its local image (the Debian base and the
// host-built binary) in a lab with an lnd node, over the lab network, restarted with its data.
// Its own docker lab, whose LDK node it restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysendBetween, nodePubkey, payBetween } from '../../control-plane/src/lab/operations.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import { startService } from '../../control-plane/src/lab/start-service.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { engine, labLeftovers, startDockerLab, uniqueLab, type DockerLab } from './support.js';

describe('an ldk node in a docker lab (btcd, the indexer, alice on lnd, bob on ldk)', () => {
  let running: DockerLab;
  let lab: LabState;
  let session: LabSession;

  beforeAll(async () => {
    running = await startDockerLab({
      name: uniqueLab('ldk'),
      indexer: { enabled: true },
      nodes: [
        { name: 'alice', kind: 'lnd', funding_sat: 5_000_000 },
        { name: 'bob', kind: 'ldk', funding_sat: 5_000_000 },
      ],
      channels: [{ from: 'bob', to: 'alice', capacity_sat: 1_000_000, push_sat: 300_000 }],
    });
    ({ lab, session } = running);
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('runs bob in a container of the ldk image, announcing the address alice dials it at', async () => {
    const docker = await engine();
    const [container] = await docker.listContainers({
      filters: { label: [`reglab.lab=${lab.name}`, 'reglab.service=bob'] },
    });
    expect(container.Image).toBe('localhost/reglab-ldk:local');
    const info = await (await fetch(`${lab.services.bob.info.api}/v1/info`)).json();
    expect(info).toMatchObject({
      node_id: lab.services.bob.info.pubkey,
      announcement_addresses: ['bob:9735'],
      chain_source: { kind: 'electrum', url: 'tcp://indexer:50001' },
    });
  });

  // before the payments: LDK killed right after one can find its ChannelManager older than the
  // channel's monitor as it starts, and force-close the channel (nodes/ldk/README.md)
  it("keeps bob's node, wallet and channel across a container kill and start", async () => {
    const pubkey = lab.services.bob.info.pubkey;
    const handle = lab.services.bob.handle!;
    await session.runtime.kill(handle);
    await startService(
      session,
      'bob',
      { onEvent: () => undefined, persist: async () => undefined },
      { as: 'restarting' },
    );
    expect(lab.services.bob.handle).not.toEqual(handle);
    expect(lab.services.bob.info.pubkey).toBe(pubkey);
    expect((await session.lightning('bob').channels.list()).map((channel) => channel.active)).toEqual([true]);
    expect(await keysendBetween(session, { from: 'bob', to: 'alice', amountSat: 1_000 })).toMatchObject({
      amountSat: 1_000,
    });
  });

  it('opened the declared channel from bob to alice across the lab network, and pays both ways', async () => {
    const channels = await session.lightning('bob').channels.list();
    expect(channels).toEqual([
      expect.objectContaining({
        capacitySat: 1_000_000,
        partnerPubkey: await nodePubkey(session, 'alice'),
        active: true,
      }),
    ]);
    expect(await payBetween(session, { from: 'bob', to: 'alice', amountSat: 4_000 })).toMatchObject({
      amountSat: 4_000,
    });
    expect(await payBetween(session, { from: 'alice', to: 'bob', amountSat: 3_000 })).toMatchObject({
      amountSat: 3_000,
      hops: 1,
    });
  });

  it('leaves nothing after tear-down', async () => {
    const docker = await engine();
    await running.stop();
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
