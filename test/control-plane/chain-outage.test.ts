// The chain node of a default-shaped lab stopped long enough for lnd's chain health check to give
// up (lnd then shuts itself down and exits 0), then started again. Checked as a user meets it:
// meanwhile every node shows it waits for the chain, never `ready`; the wallet server waits for its
// node rather than spending its restarts; `reglab mine` is refused naming the stopped chain; an
// event stream opened then says what is down. Once the chain is back, the lab comes back by
// itself: each lnd started again, the wallet server ready, a payment goes through.
// The nodes give up at their first failed chain health check (nodes[].chain_check_attempts: 1), as a
// user would ask for lnd to shut down sooner, rather than the default two tries 20 s apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { isRunning } from '../../control-plane/src/runtimes/process/child.js';
import { waitFor } from '../../lib/wait.js';
import { reglabOf } from '../support/cli.js';
import {
  bringUpLab,
  collectEvents,
  defaultLabYaml,
  startTestControlPlane,
  type TestControlPlane,
  pidOf as pidOfService,
} from '../support/control-plane.js';

const LAB = 'outage';
const LND_NODES = ['alice', 'bob', 'carol'];
const CHAIN_CHECK_ATTEMPTS = 1;
/** The default lab, its lnd nodes giving up on their chain after CHAIN_CHECK_ATTEMPTS failed checks. */
const YAML = defaultLabYaml(LAB).replace(
  /^ {4}kind: lnd$/gm,
  `    kind: lnd\n    chain_check_attempts: ${CHAIN_CHECK_ATTEMPTS}`,
);

type Service = { name: string; status: string; error?: string; restarts: number };

describe('the chain node stopped until lnd gives up on it, then started again', () => {
  let cp: TestControlPlane;
  const lab = async () => (await cp.call('GET', `/labs/${LAB}`)).body;
  const services = async (): Promise<Service[]> => (await lab()).services;
  const pidOf = (name: string) => pidOfService(cp, LAB, name);
  const reglab = (...args: string[]) => reglabOf(cp.home, ...args);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    expect(YAML.match(/chain_check_attempts/g)).toHaveLength(LND_NODES.length);
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('shows the nodes waiting, refuses to mine, keeps the wallet server from failing, and comes back by itself', async () => {
    const before = Object.fromEntries((await services()).map((service) => [service.name, service]));
    const lndPids = LND_NODES.map(pidOf);
    const events = collectEvents(`${cp.plane.url}/labs/${LAB}/events`);
    try {
      expect((await cp.call('POST', `/labs/${LAB}/services/chain/stop`)).body).toEqual({
        service: 'chain',
        status: 'stopped',
      });
      // the nodes wait for the chain at once, and never show ready until it is back
      const seenReady = new Set<string>();
      await waitFor(
        async () => {
          const now = await services();
          for (const node of LND_NODES)
            if (now.find((service) => service.name === node)?.status === 'ready') seenReady.add(node);
          return LND_NODES.every((node) =>
            now
              .find((service) => service.name === node)
              ?.error?.startsWith('waiting for chain (btcd), which is stopped'),
          );
        },
        { timeoutMs: 60_000, intervalMs: 100, what: 'every lnd node shown waiting for the chain' },
      );

      const mine = await cp.call('POST', `/labs/${LAB}/mine?wait=true`, { blocks: 1 });
      expect(mine.status).toBe(409);
      expect(mine.body.error).toEqual({
        code: 'SERVICE_NOT_READY',
        message: 'chain is stopped: start it with `reglab start chain`',
      });
      const cliMine = await reglab('mine', '1');
      expect(cliMine.code, cliMine.stderr).toBe(3);
      expect(cliMine.stderr).toContain('chain is stopped: start it with `reglab start chain`');

      // a stream opened now starts by saying what is down
      const late = collectEvents(`${cp.plane.url}/labs/${LAB}/events`);
      const degraded = await waitFor(
        async () => late.events.find((event): event is Extract<LabEvent, { type: 'lab' }> => event.type === 'lab'),
        { timeoutMs: 60_000, intervalMs: 50, what: "the stream's lab status" },
      );
      late.stop();
      expect(degraded.status).toBe('degraded');
      expect(degraded.message).toContain('chain stopped');
      expect(degraded.message).toContain('alice waiting');

      // lnd's chain health check gives up: each lnd shuts itself down (exit code 0)
      await waitFor(
        async () => {
          const now = await services();
          for (const node of LND_NODES)
            if (now.find((service) => service.name === node)?.status === 'ready') seenReady.add(node);
          return lndPids.every((pid) => !isRunning(pid));
        },
        { timeoutMs: 240_000, intervalMs: 1_000, what: 'every lnd to shut itself down on its chain health check' },
      );
      // after as many failed checks as the lab asked for
      for (const node of LND_NODES)
        expect(String((await cp.call('GET', `/labs/${LAB}/logs/${node}?lines=500`)).body)).toContain(
          `Health check: chain backend failed after ${CHAIN_CHECK_ATTEMPTS} calls`,
        );
      const waiting = await waitFor(
        async () => {
          const now = await services();
          const nodes = now.filter((service) => LND_NODES.includes(service.name));
          return nodes.every((node) => node.error?.includes('to start it again')) && now;
        },
        { timeoutMs: 60_000, intervalMs: 200, what: 'the supervisor to wait for the chain to start the nodes again' },
      );
      for (const node of waiting.filter((service) => LND_NODES.includes(service.name))) {
        expect(node.status).toBe('waiting');
        expect(node.error).toMatch(
          new RegExp(
            `^waiting for chain \\(btcd\\), which is stopped, to start it again \\(${node.name} stopped running: exited with code 0\\)`,
          ),
        );
      }
      const walletServer = waiting.find((service) => service.name === 'wallet-server')!;
      expect(walletServer.status).toBe('waiting');
      expect(walletServer.restarts).toBe(before['wallet-server'].restarts);
      expect([...seenReady]).toEqual([]);

      expect((await cp.call('POST', `/labs/${LAB}/services/chain/start`)).body).toEqual({
        service: 'chain',
        status: 'ready',
      });
      let notReady: Service[] = [];
      await waitFor(
        async () => {
          const now = await lab();
          notReady = now.services.filter((service: Service) => service.status !== 'ready');
          return now.status === 'ready';
        },
        { timeoutMs: 120_000, what: 'the lab ready again' },
      ).catch((error: Error) => {
        throw new Error(`${error.message}; not ready: ${JSON.stringify(notReady)}`);
      });
      const after = Object.fromEntries((await services()).map((service) => [service.name, service]));
      for (const node of LND_NODES) expect(after[node].restarts).toBe(before[node].restarts + 1);
      // the wallet server waited for its node: not a restart spent
      expect(after['wallet-server'].restarts).toBe(before['wallet-server'].restarts);

      // each restart was announced with the count its message gives
      const restarting = events.events.filter(
        (event): event is Extract<LabEvent, { type: 'service' }> =>
          event.type === 'service' && event.status === 'restarting' && LND_NODES.includes(event.service),
      );
      expect(restarting.length).toBeGreaterThanOrEqual(LND_NODES.length);
      for (const event of restarting) expect(event.message).toContain(`(restart ${event.restarts})`);

      const paid = await cp.call('POST', `/labs/${LAB}/payments?wait=true`, {
        from: 'alice',
        to: 'carol',
        amount_sat: 1_000,
      });
      expect(paid.body.state, JSON.stringify(paid.body)).toBe('completed');
      const mined = await reglab('mine', '1');
      expect(mined.code, mined.stderr).toBe(0);
    } finally {
      events.stop();
    }
  }, 600_000);
});
