// The indexer's container ends on its stop signal (exit 0, its last log line written), as a
// snapshot's stop needs, right after other containers of its lab stopped as a snapshot's first stop
// wave does. Those stops make Podman's aardvark-dns reload and drop the queries it gets meanwhile;
// an indexer that looked btcd's name up at each of its polls could be caught in such a lookup and
// was then killed after the stop timeout (lib/chain/node-addresses.ts). Whether a lookup is
// dropped here is a race: test/indexer/stop-without-dns.test.ts makes DNS go silent for sure.
// Its own docker lab, whose containers it stops.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BtcdDriver } from '../../lib/chain/btcd.js';
import { waitFor } from '../../lib/wait.js';
import { buildImages } from '../../control-plane/src/images/build.js';
import { BTCD_RPC_CERT_FILE, btcdLaunch } from '../../control-plane/src/nodes/btcd/launch.js';
import { electrumTipHeight } from '../../control-plane/src/nodes/indexer/electrum.js';
import { indexerLaunch } from '../../control-plane/src/nodes/indexer/index.js';
import { dockerPlacement } from '../../control-plane/src/runtimes/docker/placement.js';
import { createDockerRuntime, type DockerRuntime } from '../../control-plane/src/runtimes/docker/runtime.js';
import type { RuntimeHandle } from '../../control-plane/src/runtimes/types.js';
import { freePorts } from '../../control-plane/src/util/ports.js';
import { engine, labLeftovers, layoutOf, recipesOf, startRequest, uniqueLab } from './support.js';

const MINING_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** Containers of the lab that stop just before the indexer, as a snapshot's first stop wave does. */
const OTHERS = ['other1', 'other2', 'other3', 'other4'];

describe('the indexer container on its stop signal', () => {
  let docker: Docker;
  let runtime: DockerRuntime;
  let btcd: BtcdDriver | undefined;
  const lab = { name: uniqueLab('idxstop'), dir: '/nonexistent' };
  const layout = layoutOf(lab, { chain: 'btcd', indexer: 'indexer' });
  const rpc = { user: 'reglab', password: randomBytes(8).toString('hex') };

  beforeAll(async () => {
    docker = await engine();
    const { images } = await buildImages({ docker, images: recipesOf('btcd', 'indexer') });
    runtime = createDockerRuntime({ docker, images });
    await runtime.prepareLab(lab);
  });

  afterAll(async () => {
    btcd?.close();
    await runtime?.removeLab(lab, { volumes: true });
    expect(await labLeftovers(docker, lab.name)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it('closes and exits 0 when other containers of the lab stopped just before', async () => {
    const ports = await freePorts(2);
    await runtime.start(
      startRequest(
        lab,
        'chain',
        'btcd',
        btcdLaunch(dockerPlacement(layout, 'chain'), {
          rpcUser: rpc.user,
          rpcPassword: rpc.password,
          miningAddress: MINING_ADDRESS,
        }),
        { rpc: ports[0] },
      ),
    );
    const cert = (
      await waitFor(() => runtime.readServiceFile({ lab, service: 'chain' }, BTCD_RPC_CERT_FILE), {
        timeoutMs: 30_000,
        what: 'btcd rpc.cert',
      })
    ).toString();
    btcd = new BtcdDriver({
      kind: 'btcd',
      url: `https://127.0.0.1:${ports[0]}`,
      user: rpc.user,
      password: rpc.password,
      tlsCertPem: cert,
    });
    await waitFor(() => btcd!.getBlockCount().then((count) => count + 1), { timeoutMs: 30_000, what: 'btcd RPC' });
    await btcd.generate(3);

    const placement = dockerPlacement(layout, 'indexer');
    const chain = {
      kind: 'btcd' as const,
      url: `https://${placement.reach('chain', 'rpc')}`,
      user: rpc.user,
      password: rpc.password,
      tlsCertPem: cert,
    };
    const indexer = await runtime.start(
      startRequest(lab, 'indexer', 'indexer', indexerLaunch(placement, chain), { electrum: ports[1] }),
    );
    await waitFor(async () => (await electrumTipHeight(`127.0.0.1:${ports[1]}`)) === 3, {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'the indexer at height 3',
    });

    // idle Node processes from the services image, on the lab's network
    const others: RuntimeHandle[] = [];
    for (const name of OTHERS) {
      others.push(
        await runtime.start(
          startRequest(
            lab,
            name,
            'indexer',
            {
              program: { type: 'image', name: 'services' },
              args: ['-e', 'setInterval(() => undefined, 1 << 30)'],
              env: {},
            },
            {},
          ),
        ),
      );
    }
    await Promise.all(others.map((handle) => runtime.stop(handle)));
    await runtime.stop(indexer);

    // killed after the stop timeout, it would report 137 (SIGKILL) and never log its last line
    expect(await runtime.exitStatus(indexer)).toEqual({ code: 0 });
    expect(await runtime.logs({ lab, service: 'indexer' }, indexer, 20)).toContain('"msg":"indexer stopped"');
  });
});
