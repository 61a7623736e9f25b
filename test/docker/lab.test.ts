// A whole lab on the docker runtime, brought up and torn down by the lab's own bring-up (the
// planner, launches, readiness probes, funding, channels), as `runtime: docker` will run it.
// Its own lab: the docker runtime's bring-up and tear-down are what it checks.
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mineBlocks, nodePubkey, payBetween } from '../../control-plane/src/lab/operations.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { volumeName } from '../../control-plane/src/runtimes/docker/placement.js';
import { fileFromTar, readAll } from '../../control-plane/src/runtimes/docker/streams.js';
import { waitFor } from '../../lib/wait.js';
import { engine, labLeftovers, startDockerLab, uniqueLab, type DockerLab } from './support.js';

describe('a lab on the docker runtime (btcd, indexer, two lnd nodes with a channel, the services)', () => {
  let docker: Docker;
  let running: DockerLab;
  let lab: LabState;
  let session: LabSession;
  const name = uniqueLab('lab');
  const STALE = { 'reglab.lab': name, 'reglab.test': 'left by an earlier lab of this name' };

  beforeAll(async () => {
    docker = await engine();
    // what an earlier lab of this name left, its record lost (another REGLAB_HOME, a deleted .reglab)
    await docker.createVolume({ Name: volumeName(name, 'alice'), Labels: STALE });
    running = await startDockerLab({
      name,
      indexer: { enabled: true },
      nodes: [
        { name: 'alice', kind: 'lnd', funding_sat: 5_000_000 },
        { name: 'bob', kind: 'lnd', funding_sat: 5_000_000 },
      ],
      channels: [{ from: 'alice', to: 'bob', capacity_sat: 500_000 }],
      services: { 'chain-adapter': {}, faucet: { node: 'alice' }, 'wallet-server': { node: 'bob' } },
    });
    ({ lab, session } = running);
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('runs every service in its own labelled container', async () => {
    expect(Object.values(lab.services).map((service) => [service.name, service.status])).toEqual(
      Object.keys(lab.services).map((name) => [name, 'ready']),
    );
    const containers = await docker.listContainers({ filters: { label: [`reglab.lab=${lab.name}`] } });
    expect(containers.map((container) => container.Labels['reglab.service']).sort()).toEqual(
      Object.keys(lab.services).sort(),
    );
  });

  it('gives each container a fixed address, and every container finds every service by name in its /etc/hosts', async () => {
    const containers = await docker.listContainers({ filters: { label: [`reglab.lab=${lab.name}`] } });
    const addressOf = Object.fromEntries(
      containers.map((container) => [
        container.Labels['reglab.service'],
        container.NetworkSettings.Networks[`reglab-${lab.name}`].IPAddress,
      ]),
    );
    expect(new Set(Object.values(addressOf)).size).toBe(containers.length);
    for (const container of containers) {
      const hosts = fileFromTar(
        await readAll(await docker.getContainer(container.Id).getArchive({ path: '/etc/hosts' })),
        'hosts',
      ).toString();
      for (const [service, address] of Object.entries(addressOf))
        expect(hosts).toMatch(new RegExp(`^${address.replaceAll('.', '\\.')}\\s+${service}$`, 'm'));
    }
  });

  it('starts on new volumes, not on the ones an earlier lab of its name left', async () => {
    const volume = await docker.getVolume(volumeName(name, 'alice')).inspect();
    expect(volume.Labels).not.toHaveProperty('reglab.test');
    expect(volume.Labels).toMatchObject({ 'reglab.lab': name });
  });

  it('funded both lnd nodes, which follow btcd across the lab network', async () => {
    const height = await session.chain.getBlockCount();
    for (const node of ['alice', 'bob']) {
      const info = await session.lightning(node).info();
      expect(info.height).toBe(height);
      expect((await session.node(node).onchainBalance()).confirmedSat).toBeGreaterThan(4_000_000);
    }
  });

  it('opened the declared channel between lnd containers over the lab network, and pays over it', async () => {
    // lnd dials its peer from inside its container: the peer's address is the placement's, not the host's
    expect(running.runtimeOptions.placementFor(lab, 'alice').reach('bob', 'p2p')).toBe('bob:9735');
    const channels = (await session.lightning('alice').channels.list()).filter((channel) => channel.active);
    expect(channels).toEqual([
      expect.objectContaining({ capacitySat: 500_000, partnerPubkey: await nodePubkey(session, 'bob') }),
    ]);
    const payment = await payBetween(session, { from: 'alice', to: 'bob', amountSat: 1_000 });
    expect(payment.amountSat).toBe(1_000);
  });

  it('mines exactly the blocks asked for, as on the process runtime', async () => {
    const before = await session.chain.getBlockCount();
    const { height } = await mineBlocks(session, 10);
    expect(height).toBe(before + 10);
  });

  it('serves the chain adapter from its container, over the indexer and btcd', async () => {
    const base = `http://${session.host.reach('chain-adapter', 'http')}`;
    const tip = await session.chain.getBlockCount();
    // the indexer follows btcd by polling: it reaches the tip a moment after blocks are mined
    await waitFor(async () => Number(await (await fetch(`${base}/api/blocks/tip/height`)).text()) === tip, {
      timeoutMs: 15_000,
      what: `the adapter at height ${tip}`,
    });
  });

  it('leaves no container, network or volume after tear-down', async () => {
    await running.stop();
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
