// rgb nodes on the docker runtime: the consignment proxy and two rgb nodes (rgb-lib's native
// library loaded inside the services image) brought up by the lab's own bring-up — RLN's start
// sequence, funding, colored UTXOs — then an asset declared in lab.yaml issued and handed to the
// other node through the proxy across the lab network, and one issued on a node's API.
// Its own lab: rgb nodes on the docker runtime.
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RlnClient } from '../../lib/rln/client.js';
import { buildImages } from '../../control-plane/src/images/build.js';
import type { LabSession } from '../../control-plane/src/lab/session.js';
import type { LabState } from '../../control-plane/src/lab/state.js';
import { engine, labLeftovers, recipesOf, startDockerLab, uniqueLab, type DockerLab } from './support.js';

describe('a docker lab with two rgb nodes', () => {
  let docker: Docker;
  let running: DockerLab;
  let lab: LabState;
  let session: LabSession;
  const client = (node: string) => new RlnClient(`http://${session.host.reach(node, 'api')}`);
  const settled = async (node: string, ticker: string) =>
    (await client(node).assetBalance(lab.assets![ticker])).settled;

  beforeAll(async () => {
    docker = await engine();
    // built before the bring-up takes its host ports: a build of the services image takes minutes
    // on a loaded machine, long enough for another lab to take a port chosen before it
    await buildImages({ docker, images: recipesOf('btcd', 'indexer', 'rgb-proxy', 'rgb') });
    running = await startDockerLab({
      name: uniqueLab('rgb'),
      indexer: { enabled: true },
      nodes: [
        { name: 'issuer', kind: 'rgb', funding_sat: 1_000_000 },
        { name: 'holder', kind: 'rgb', funding_sat: 1_000_000 },
      ],
      assets: [{ ticker: 'LAB', name: 'Lab coin', supply: 1_000, issuer: 'issuer', distribute: { holder: 300 } }],
    });
    ({ lab, session } = running);
  });

  afterAll(async () => {
    await running?.stop();
  });

  it('runs the proxy and both nodes in containers of the services image, initialised, unlocked and funded with colored UTXOs', async () => {
    const containers = await docker.listContainers({ filters: { label: [`reglab.lab=${lab.name}`] } });
    const images = Object.fromEntries(
      containers.map((container) => [container.Labels['reglab.service'], container.Image]),
    );
    expect(images).toMatchObject({
      'rgb-proxy': 'localhost/reglab-services:local',
      issuer: 'localhost/reglab-services:local',
      holder: 'localhost/reglab-services:local',
    });
    for (const node of ['issuer', 'holder']) {
      expect(lab.services[node].status).toBe('ready');
      expect(lab.services[node].info.pubkey).toMatch(/^0[23][0-9a-f]{64}$/);
      const balance = await client(node).btcBalance();
      expect(balance.colored.settled).toBeGreaterThan(0);
      expect(balance.vanilla.settled).toBeGreaterThan(0);
    }
  });

  it("issued the asset lab.yaml declares and handed its share to the other node through the lab's proxy", async () => {
    expect(await settled('issuer', 'LAB')).toBe(700);
    expect(await settled('holder', 'LAB')).toBe(300);
  });

  it("issues an asset on a node's API", async () => {
    const asset = await client('holder').issueAssetNia({
      amounts: [1_000],
      ticker: 'OWN',
      name: 'Own coin',
      precision: 0,
    });
    expect(asset).toMatchObject({ ticker: 'OWN', issued_supply: 1_000 });
    expect((await client('holder').assetBalance(asset.asset_id)).settled).toBe(1_000);
  });

  it('leaves no container, network or volume after tear-down', async () => {
    await running.stop();
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
