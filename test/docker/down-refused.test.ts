// `reglab down --volumes` that the container engine refuses part-way (a volume of the lab mounted
// by a container of the user's, kept to read the chain's data): the answer names the engine's
// reason, the lab is shown failed saying so (not left "stopping"), and a `down` once the volume is
// free removes everything.
// Its own docker lab, taken down.
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerName, volumeName } from '../../control-plane/src/runtimes/docker/placement.js';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { engine, labLeftovers, uniqueLab } from './support.js';

const LAB = uniqueLab('down');
const YAML = `name: ${LAB}\nruntime: docker\nindexer:\n  enabled: false\n`;

describe('a docker lab whose tear-down the engine refuses part-way', () => {
  let docker: Docker;
  let cp: TestControlPlane;
  let borrower: Docker.Container | undefined;

  beforeAll(async () => {
    docker = await engine();
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await borrower?.remove({ force: true }).catch(() => undefined);
    await cp?.stop();
    for (const volume of (await labLeftovers(docker, LAB)).volumes)
      await docker.getVolume(volume).remove({ force: true });
  });

  it('answers the refusal and shows the lab failed with the reason, until a down succeeds', async () => {
    const { Config } = await docker.getContainer(containerName(LAB, 'chain')).inspect();
    borrower = await docker.createContainer({
      Image: Config.Image,
      name: `${LAB}-borrower`,
      HostConfig: { Binds: [`${volumeName(LAB, 'chain')}:/borrowed`] },
    });
    const refused = await cp.call('DELETE', `/labs/${LAB}?volumes=true`);
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('CONTAINER_ENGINE_ERROR');
    expect(refused.body.error.message).toMatch(/being used|in use/);

    const { body: lab } = await cp.call('GET', `/labs/${LAB}`);
    expect(lab.status).toBe('failed');
    expect(lab.error).toMatch(
      /^reglab down stopped part-way \(run it again once this is fixed\): .*(being used|in use)/,
    );
    expect(lab.services.map((service: { status: string }) => service.status)).toEqual(
      lab.services.map(() => 'stopped'),
    );
  });

  it('removes the lab and all it left once the volume is free', async () => {
    await borrower!.remove({ force: true });
    borrower = undefined;
    expect((await cp.call('DELETE', `/labs/${LAB}?volumes=true`)).status).toBe(200);
    expect((await cp.call('GET', `/labs/${LAB}`)).status).toBe(404);
    expect(await labLeftovers(docker, LAB)).toEqual({ containers: [], networks: [], volumes: [] });
  });
});
