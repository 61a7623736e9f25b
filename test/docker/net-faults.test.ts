// Network faults on the docker runtime: the mixed lab (alice lnd -> bob ldk -> carol lnd) with
// `network: { faults: true }` through a control plane, its links through the proxies of its
// `toxiproxy` container, which each node's container finds under the names of the services it dials.
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerName } from '../../control-plane/src/runtimes/docker/placement.js';
import { fileFromTar, readAll } from '../../control-plane/src/runtimes/docker/streams.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { faultsLabYaml, networkScenarioFailures, type ProxyStatus } from '../network/faults-lab.js';
import { engine, labLeftovers, uniqueLab } from './support.js';

const LAB = uniqueLab('net');
const YAML = faultsLabYaml(LAB, 'docker');

describe('network faults on the docker runtime', () => {
  let docker: Docker;
  let cp: TestControlPlane;
  const proxies = async (): Promise<ProxyStatus[]> =>
    (await cp.call('GET', `/labs/${LAB}/net`)).body.links.flatMap((link: { proxies: ProxyStatus[] }) => link.proxies);
  const addressOf = async (service: string) =>
    (await docker.getContainer(containerName(LAB, service)).inspect()).NetworkSettings.Networks[`reglab-${LAB}`]
      .IPAddress;
  const hostsOf = async (service: string) =>
    fileFromTar(
      await readAll(await docker.getContainer(containerName(LAB, service)).getArchive({ path: '/etc/hosts' })),
      'hosts',
    ).toString();

  beforeAll(async () => {
    docker = await engine();
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await cp?.stop();
    for (const volume of (await labLeftovers(docker, LAB)).volumes)
      await docker.getVolume(volume).remove({ force: true });
  });

  it("runs the proxies in a container of their own, which each node's container finds under the names it dials", async () => {
    const containers = await docker.listContainers({ filters: { label: [`reglab.lab=${LAB}`] } });
    expect(containers.map((container) => container.Labels['reglab.service'])).toContain('toxiproxy');
    const proxy = await addressOf('toxiproxy');
    const aliceHosts = await hostsOf('alice');
    for (const dialled of ['chain', 'bob', 'carol'])
      expect(aliceHosts).toMatch(new RegExp(`^${proxy.replaceAll('.', '\\.')}\\s+${dialled}$`, 'm'));
    // bob follows the chain through the indexer: that is his link, not btcd
    const bobHosts = await hostsOf('bob');
    expect(bobHosts).toMatch(new RegExp(`^${proxy.replaceAll('.', '\\.')}\\s+indexer$`, 'm'));
    expect(bobHosts).toMatch(new RegExp(`^${(await addressOf('chain')).replaceAll('.', '\\.')}\\s+chain$`, 'm'));
    // a service without links sees every service at its own address
    expect(await hostsOf('indexer')).toMatch(
      new RegExp(`^${(await addressOf('chain')).replaceAll('.', '\\.')}\\s+chain$`, 'm'),
    );

    const toChain = (await proxies()).find((each) => each.name === 'alice>chain:rpc')!;
    expect(toChain).toMatchObject({ enabled: true, upstream: 'chain:18334' });
    const { Args } = await docker.getContainer(containerName(LAB, 'alice')).inspect();
    expect(Args.join(' ')).toContain(`--btcd.rpchost=chain:${toChain.listen.split(':')[1]}`);
  });

  it('delays alice–bob as Toxiproxy reports it, and heals it', async () => {
    await cp.call('POST', `/labs/${LAB}/net/delay`, { a: 'alice', b: 'bob', delay_ms: 200 });
    const delayed = (await proxies()).filter((each) => ['alice>bob:p2p', 'bob>alice:p2p'].includes(each.name));
    expect(delayed).toHaveLength(2);
    for (const each of delayed)
      expect(each.toxics.map(({ type, stream, attributes }) => ({ type, stream, attributes }))).toEqual([
        { type: 'latency', stream: 'upstream', attributes: { latency: 200, jitter: 0 } },
        { type: 'latency', stream: 'downstream', attributes: { latency: 200, jitter: 0 } },
      ]);
    const paid = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 1_000,
    });
    expect(paid.body).toMatchObject({ state: 'completed', result: { hops: 2 } });
    await cp.call('POST', `/labs/${LAB}/net/heal`, {});
    expect((await proxies()).every((each) => each.toxics.length === 0 && each.enabled)).toBe(true);
  });

  it("passes the library's network scenario: a delayed link, a node cut off and healed", async () => {
    expect(await networkScenarioFailures(cp.plane.url, LAB)).toEqual([]);
    expect(cp.plane.manager.get(LAB).services.carol).toMatchObject({ status: 'ready', restarts: 0 });
  });
});
