// The chain node of a default-shaped lab killed (kill -9) or stopped and started on purpose. btcd
// starts every regtest chain empty, so the lab gives it its blocks back (the chain journal) before
// it counts as ready. Checked as a user meets it: the same height and tip, an Electrum wallet on the
// indexer never told the chain went back, then a payment alice -> carol and a mine that every lnd
// node and the indexer follow. The lab is brought up over what an earlier lab of its name left in
// its folder (its record lost): it starts without it. Its probes run every five minutes, so a block
// a user mines over RPC reaches the journal only by btcd's own notice of it, before and after the
// node's restart.
// Its own lab: it kills, stops and reorgs the chain node and kills every service at once.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BtcdDriver } from '../../lib/chain/btcd.js';
import { waitFor } from '../../lib/wait.js';
import { connectLineClient, type LineClient } from '../indexer/rpc-line-client.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { logLines } from '../support/lab-logs.js';

const LAB = 'keep';
const LND_NODES = ['alice', 'bob', 'carol'];
/** Longer than any wait of this file: the supervisor's periodic follow of the chain cannot journal a block in time. */
const RARE_PROBES = 'supervision:\n  probe_interval_seconds: 300\n';

type Service = { name: string; status: string; restarts: number; ports: Record<string, number> };

describe("a restarted chain node comes back with the lab's chain", () => {
  let cp: TestControlPlane;
  /** The chain node over the credentials the lab hands out, as a user's own tool reaches it. */
  let chain: BtcdDriver;
  /** An Electrum wallet following the indexer's tip. */
  let electrum: LineClient;

  const service = async (name: string): Promise<Service> =>
    (await cp.call('GET', `/labs/${LAB}`)).body.services.find((found: Service) => found.name === name);
  const tip = async () => ({ height: await chain.getBlockCount(), hash: await chain.getBestBlockHash() });
  const headerHeights = () =>
    electrum.notifications
      .filter((note) => note.method === 'blockchain.headers.subscribe')
      .map((note) => (note.params[0] as { height: number }).height);

  /** The chain service ready again after `restarts` restarts by the supervisor. */
  const chainReady = (restarts: number) =>
    waitFor(
      async () => {
        const chainService = await service('chain');
        return chainService.status === 'ready' && chainService.restarts === restarts && chainService;
      },
      { timeoutMs: 60_000, what: 'the chain node ready again' },
    );

  /** The lab ready again; when it is not within the wait, the error names the services that are not. */
  const labReady = async () => {
    let notReady: Service[] = [];
    try {
      await waitFor(
        async () => {
          const lab = (await cp.call('GET', `/labs/${LAB}`)).body;
          notReady = lab.services.filter((found: Service) => found.status !== 'ready');
          return lab.status === 'ready';
        },
        // lnd dials a restarted chain node again after a wait growing to a minute: its nodes are ready once they have
        { timeoutMs: 120_000, what: 'the lab ready again' },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; not ready: ${JSON.stringify(notReady)}`);
    }
  };

  /** What a user does next: pay alice -> carol, mine a block; every lnd node and the indexer follow it. */
  const payAndMine = async (height: number) => {
    const paid = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
      from: 'alice',
      to: 'carol',
      amount_sat: 1_000,
    });
    expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
    expect(paid.body.result.hops).toBe(2);
    const mined = await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
    expect(mined.body.state, JSON.stringify(mined.body)).toBe('completed');
    expect(mined.body.result.height).toBe(height + 1);
    const session = cp.plane.manager.session(LAB);
    await Promise.all(
      LND_NODES.map((node) =>
        session
          .node(node)
          .waitSynced(height + 1)
          .catch(async (error: Error) => {
            // what the node said of its chain, to tell why it did not follow
            const chainLines = await logLines(
              cp.plane.url,
              LAB,
              node,
              /NTFN|BTCN|CRTR|LNWL|BTWL|BLBT|GRPH|RPCC|onnect/,
              60,
            );
            throw new Error(`${error.message}; ${node}'s log:\n${chainLines.join('\n')}`);
          }),
      ),
    );
    await waitFor(
      async () =>
        ((await electrum.request('blockchain.headers.subscribe')) as { height: number }).height === height + 1,
      { timeoutMs: 30_000, what: 'the indexer to serve the new block' },
    );
  };

  beforeAll(async () => {
    cp = await startTestControlPlane();
    // what an earlier lab of this name left in its folder, its record lost: another lab's chain, an lnd folder
    const leftovers = join(cp.home, 'labs', LAB);
    mkdirSync(join(leftovers, 'services', 'alice'), { recursive: true });
    writeFileSync(join(leftovers, 'services', 'alice', 'left-by-an-earlier-lab'), '');
    const notThisChain = Buffer.alloc(81, 1);
    writeFileSync(join(leftovers, 'chain-blocks.journal'), Buffer.concat([Buffer.from([81, 0, 0, 0]), notThisChain]));
    await bringUpLab(cp, defaultLabYaml(LAB) + RARE_PROBES, LAB);
    expect(existsSync(join(leftovers, 'services', 'alice', 'left-by-an-earlier-lab'))).toBe(false);
    const credentials = (await cp.call('GET', `/labs/${LAB}/services/chain/credentials`)).body;
    chain = new BtcdDriver({
      kind: 'btcd',
      url: credentials.rpcUrl,
      user: credentials.rpcUser,
      password: credentials.rpcPassword,
      tlsCertPem: credentials.rpcCertPem,
    });
    electrum = await connectLineClient((await service('indexer')).ports.electrum);
    await electrum.request('blockchain.headers.subscribe');
  });

  afterAll(async () => {
    electrum?.close();
    chain?.close();
    await cp?.stop();
  });

  /** A block mined over the chain node's RPC, as a user's own tool does, once the lab has journaled it. */
  const mineOverRpc = async () => {
    await chain.mine(1, cp.plane.manager.session(LAB).labWallet.address);
    const mined = await tip();
    await waitFor(async () => (await cp.plane.manager.session(LAB).chainJournal.tip())?.hash === mined.hash, {
      timeoutMs: 20_000,
      what: 'the journal to hold the block mined over RPC',
    });
    return mined;
  };

  it('kill -9: after a reorg and a block a user mined over RPC, the restarted node has the same height and tip, and the lab carries on', async () => {
    expect((await cp.call('POST', `/labs/${LAB}/reorg?wait=true`, { blocks: 2 })).body.state).toBe('completed');
    const before = await mineOverRpc();
    const notifiedBefore = headerHeights().length;

    const handle = cp.plane.manager.get(LAB).services.chain.handle;
    if (handle?.runtime !== 'process') throw new Error('the chain node runs no process');
    process.kill(handle.pid, 'SIGKILL');
    await chainReady(1);

    expect(await tip()).toEqual(before);
    expect(
      headerHeights()
        .slice(notifiedBefore)
        .filter((height) => height < before.height),
    ).toEqual([]);
    // its nodes waited for it meanwhile: the lab is ready once they answer again
    await labReady();
    await payAndMine(before.height);
    // the lab hears of a user's blocks from the restarted node too
    await mineOverRpc();
  });

  it('kill -9 of every service of the lab at once: each comes back, the chain with its height and tip, and the lab carries on', async () => {
    const before = await tip();
    const lab = cp.plane.manager.get(LAB);
    const restartsBefore = Object.fromEntries(Object.values(lab.services).map((found) => [found.name, found.restarts]));
    for (const found of Object.values(lab.services)) {
      if (found.handle?.runtime !== 'process') throw new Error(`${found.name} runs no process`);
      process.kill(found.handle.pid, 'SIGKILL');
    }
    await waitFor(
      async () => {
        const services: Service[] = (await cp.call('GET', `/labs/${LAB}`)).body.services;
        return services.every((found) => found.status === 'ready' && found.restarts > restartsBefore[found.name]!);
      },
      { timeoutMs: 100_000, what: 'every service restarted and ready' },
    );
    // the Electrum connection ended with the indexer's process: a wallet connects again
    electrum.close();
    electrum = await connectLineClient((await service('indexer')).ports.electrum);
    expect(((await electrum.request('blockchain.headers.subscribe')) as { height: number }).height).toBe(before.height);

    expect(await tip()).toEqual(before);
    await payAndMine(before.height);
    await labReady();
  });

  it('reglab stop chain, then start: the node comes back with the same height and tip, and the lab carries on', async () => {
    const before = await tip();
    const notifiedBefore = headerHeights().length;
    expect((await cp.call('POST', `/labs/${LAB}/services/chain/stop`)).body).toEqual({
      service: 'chain',
      status: 'stopped',
    });
    expect((await cp.call('POST', `/labs/${LAB}/services/chain/start`)).body).toEqual({
      service: 'chain',
      status: 'ready',
    });

    expect(await tip()).toEqual(before);
    expect(
      headerHeights()
        .slice(notifiedBefore)
        .filter((height) => height < before.height),
    ).toEqual([]);
    await labReady();
    await payAndMine(before.height);
  });
});
