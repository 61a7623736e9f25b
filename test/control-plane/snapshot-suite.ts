// Snapshots on a default-shaped lab, on one runtime, as a user meets them: save a lab, change it
// (payments, blocks, a wallet-server payment), reset it and find the snapshot's balances; bring a lab
// up from the snapshot and pay over it; and the refusals. Run for the process runtime by
// test/control-plane/snapshots.test.ts, for the docker runtime (Podman's Docker API, with the lab's
// images) by test/docker/snapshots.test.ts, in the container engine's lane.
// Its own labs: a reset and an up from a snapshot replace the lab (and the docker runtime runs
// one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/wait.js';
import { bringUpLab, defaultLabYaml, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { signInToWalletServer, type WalletServerCall } from '../support/wallet-server-user.js';
import { engine } from '../docker/support.js';

/**
 * The default lab, alice -> bob pushing 2,000,000 sat to bob so that bob can pay the wallet server (on
 * alice), its status waiting for every figure the tests compare (a busy machine answers late).
 */
const yamlOf = (lab: string, runtime: string) =>
  `${defaultLabYaml(lab)
    .replace(/^runtime: .*$/m, `runtime: ${runtime}`)
    .replace(
      /(- from: alice\n\s+to: bob\n\s+capacity_sat: 5000000\n\s+push_sat:) 0/,
      '$1 2000000',
    )}status:\n  answer_timeout_seconds: 10\n`;

type Lab = {
  status: string;
  chain: { height: number };
  labWallet: { spendableSat: number };
  nodes: { name: string; chainBalanceSat: number; channelBalanceSat: number }[];
  services: { name: string; info: { url?: string } }[];
};

/** What a reset must give back: every node's channel and on-chain balance, the lab wallet, the height. */
const balancesOf = (lab: Lab) => ({
  height: lab.chain.height,
  labWalletSat: lab.labWallet.spendableSat,
  nodes: Object.fromEntries(
    lab.nodes.map((node) => [node.name, { channelSat: node.channelBalanceSat, chainSat: node.chainBalanceSat }]),
  ),
});

/** The snapshot tests on `runtime`, against a lab of their own. */
export function describeSnapshots(runtime: 'process' | 'docker'): void {
  describe(`snapshots on the ${runtime} runtime`, () => {
    const LAB = `snap-${runtime}`;
    let cp: TestControlPlane;
    const lab = async (): Promise<Lab> => (await cp.call('GET', `/labs/${LAB}`)).body;
    const pay = async (from: string, to: string, amountSat: number) =>
      (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from, to, amount_sat: amountSat })).body;
    /** The lab's wallet server, signed in as one user (the token lives in the lab's Redis). */
    let walletServer: WalletServerCall;
    let wallet: string;
    let snapshotBalances: ReturnType<typeof balancesOf>;

    /** Each service's container (docker). */
    const containers = async () =>
      Object.fromEntries(
        (await (await engine()).listContainers({ filters: { label: [`reglab.lab=${LAB}`] } })).map((container) => [
          container.Labels['reglab.service'],
          container.Id,
        ]),
      );
    const walletBalance = async () =>
      (await walletServer('GET', `/wallets/${wallet}`, undefined, wallet)).body.balance_msat as string;

    beforeAll(async () => {
      cp = await startTestControlPlane();
      await bringUpLab(cp, yamlOf(LAB, runtime), LAB);
      walletServer = await signInToWalletServer(
        async () => (await lab()).services.find((service) => service.name === 'wallet-server')!.info.url!,
      );
      wallet = (await walletServer('POST', '/wallets', { name: 'snapshot' })).body.id;
      const aliceBefore = balancesOf(await lab()).nodes.alice!.channelSat;
      const invoice = (await walletServer('POST', '/payments/invoices', { amount_msat: 300_000_000 }, wallet)).body;
      expect(
        (await cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from: 'bob', invoice: invoice.payment_request }))
          .body.state,
      ).toBe('completed');
      await waitFor(async () => (await walletBalance()) === '300000000', {
        timeoutMs: 20_000,
        what: 'the wallet funded by bob',
      });
      // lnd settles the invoice as the payment arrives, and counts it in alice's channel balance only
      // once the channel's commitments are signed again: the balances the snapshot is checked against
      // are those after that
      await waitFor(async () => balancesOf(await lab()).nodes.alice!.channelSat === aliceBefore + 300_000, {
        timeoutMs: 20_000,
        what: "the payment in alice's channel balance",
      });
    });

    afterAll(async () => {
      await cp?.call('DELETE', `/labs/${LAB}?volumes=true`);
      await cp?.stop();
    });

    it('refuses to reset a lab that neither came from a snapshot nor saved one, and changes nothing', async () => {
      const before = balancesOf(await lab());
      const answer = await cp.call('POST', `/labs/${LAB}/reset`);
      expect(answer.status).toBe(409);
      expect(answer.body.error.code).toBe('NOT_FROM_SNAPSHOT');
      expect(answer.body.error.message).toContain('reglab snapshot save');
      expect((await lab()).status).toBe('ready');
      expect(balancesOf(await lab())).toEqual(before);
    });

    it('saves a ready lab: its services stop and come back, with the same balances', async () => {
      snapshotBalances = balancesOf(await lab());
      const saved = await cp.call('POST', `/labs/${LAB}/snapshots`, { name: 'base' });
      expect(saved.status).toBe(201);
      expect(saved.body).toMatchObject({ name: 'base', lab: LAB, runtime, height: snapshotBalances.height });
      expect(saved.body.bytes).toBeGreaterThan(0);
      expect((await lab()).status).toBe('ready');
      expect(balancesOf(await lab())).toEqual(snapshotBalances);
      expect(await walletBalance()).toBe('300000000');
      const listed = await cp.call('GET', '/snapshots');
      expect(listed.body.snapshots.map((snapshot: { name: string }) => snapshot.name)).toEqual(['base']);
    });

    it('refuses a second snapshot of the same name and a name that is no folder name', async () => {
      const again = await cp.call('POST', `/labs/${LAB}/snapshots`, { name: 'base' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('SNAPSHOT_EXISTS');
      const bad = await cp.call('POST', `/labs/${LAB}/snapshots`, { name: '../escape' });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('INVALID_SNAPSHOT_NAME');
      expect((await cp.call('GET', '/snapshots')).body.snapshots).toHaveLength(1);
    });

    it('resets a lab after payments, blocks and a wallet-server payment to the balances of the snapshot', async () => {
      expect(await pay('alice', 'carol', 10_000)).toMatchObject({ state: 'completed' });
      expect(await pay('bob', 'alice', 2_000)).toMatchObject({ state: 'completed' });
      const invoice = (await cp.call('POST', `/labs/${LAB}/nodes/carol/invoices`, { amount_msat: 50_000_000 })).body;
      expect(
        (await walletServer('POST', '/payments/pay', { invoice: invoice.payment_request }, wallet)).status,
      ).toBeLessThan(300);
      await waitFor(async () => (await walletBalance()) !== '300000000', {
        timeoutMs: 20_000,
        what: 'the wallet-server payment',
      });
      expect(
        (await cp.call('POST', `/labs/${LAB}/fund?wait=true`, { node: 'carol', amount_sat: 123_456 })).body.state,
      ).toBe('completed');
      expect((await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 3 })).body.state).toBe('completed');
      expect(balancesOf(await lab())).not.toEqual(snapshotBalances);
      const containersBefore = runtime === 'docker' ? await containers() : undefined;

      const reset = await cp.call('POST', `/labs/${LAB}/reset`);
      expect(reset.status).toBe(200);
      // on docker each service ran again in its own container, on the snapshot's data
      if (containersBefore) expect(await containers()).toEqual(containersBefore);
      expect(reset.body).toMatchObject({ name: LAB, status: 'ready', snapshot: 'base' });
      expect(balancesOf(await lab())).toEqual(snapshotBalances);
      // the wallet server's ledger (Postgres) and its user's session (Redis) are those of the snapshot
      expect(await walletBalance()).toBe('300000000');
      expect(await pay('alice', 'carol', 1_000)).toMatchObject({ state: 'completed' });
    });

    /** Brings LAB up from snapshot `base`, polled as a script would (the list of labs, every 5 ms). */
    const upFromSnapshot = async () => {
      const up = await cp.call('POST', '/snapshots/base/up');
      expect(up.status).toBe(202);
      expect(up.body).toMatchObject({ name: LAB, snapshot: 'base' });
      await waitFor(
        async () => {
          const { status } = (await cp.call('GET', '/labs')).body.labs.find(
            (listed: { name: string }) => listed.name === LAB,
          );
          if (status === 'failed') throw new Error('the lab failed to come up from the snapshot');
          return status === 'ready';
        },
        {
          timeoutMs: 120_000,
          intervalMs: 5,
          what: 'the lab up from the snapshot',
          stopOn: (error) => String(error).includes('failed'),
        },
      );
    };

    it('brings a lab up from the snapshot after a down that kept its data, none of which is left', async () => {
      expect(await pay('alice', 'carol', 7_000)).toMatchObject({ state: 'completed' });
      expect((await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 2 })).body.state).toBe('completed');
      expect(balancesOf(await lab())).not.toEqual(snapshotBalances);
      expect((await cp.call('DELETE', `/labs/${LAB}`)).status).toBe(200);

      await upFromSnapshot();

      expect(balancesOf(await lab())).toEqual(snapshotBalances);
      expect(await walletBalance()).toBe('300000000');
    });

    it('brings a lab up from the snapshot that pays alice -> carol, and refuses one while that lab is up', async () => {
      expect((await cp.call('DELETE', `/labs/${LAB}?volumes=true`)).status).toBe(200);
      // the lab seen ready accepts an action at once
      await upFromSnapshot();
      const atOnce = await cp.call('POST', `/labs/${LAB}/snapshots`, { name: 'at-ready' });
      expect(atOnce.status, JSON.stringify(atOnce.body)).toBe(201);
      expect((await cp.call('DELETE', '/snapshots/at-ready')).status).toBe(200);
      expect(balancesOf(await lab())).toEqual(snapshotBalances);
      expect(await walletBalance()).toBe('300000000');
      expect(await pay('alice', 'carol', 1_000)).toMatchObject({
        state: 'completed',
        result: { amountSat: 1_000, hops: 2 },
      });

      const twice = await cp.call('POST', '/snapshots/base/up');
      expect(twice.status).toBe(409);
      expect(twice.body.error.code).toBe('LAB_ALREADY_UP');
    });

    it('answers 404 for a snapshot that does not exist, and removes one', async () => {
      const missing = await cp.call('POST', '/snapshots/nope/up');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('NO_SUCH_SNAPSHOT');
      expect((await cp.call('DELETE', '/snapshots/nope')).status).toBe(404);
      expect((await cp.call('DELETE', '/snapshots/base')).body).toEqual({ name: 'base', removed: true });
      expect((await cp.call('GET', '/snapshots')).body.snapshots).toEqual([]);
      const reset = await cp.call('POST', `/labs/${LAB}/reset`);
      expect(reset.status).toBe(404);
      expect(reset.body.error.code).toBe('NO_SUCH_SNAPSHOT');
    });
  });
}
