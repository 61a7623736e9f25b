// A control plane restarted under a running lab, and a lab removed through the API: the lab is
// re-attached as it runs; a service that died while the control plane was down shows the lab
// degraded and is restarted with its channels; DELETE leaves no process and no port. Its own lab,
// since this file restarts the control plane that runs it, kills a node and removes the lab; of
// the default lab's shape, what these need: alice -> bob -> carol and the wallet server with its
// Postgres and Redis (no indexer, faucet nor chain adapter to start).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import { isRunning, stopProcessGroup } from '../../control-plane/src/runtimes/process/child.js';
import { isListening } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import { apiCaller, bringUpLab, walletServerLineLab } from '../support/control-plane.js';

const LAB = walletServerLineLab('api');

describe('a control plane restarted under its lab, and the lab removed', () => {
  let home: string;
  let plane: RunningControlPlane;
  const call = apiCaller(() => plane.url);

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'reglab-home-'));
    chmodSync(home, 0o755);
    plane = await startControlPlane({ home });
    await bringUpLab({ call }, LAB, 'api');
  });

  afterAll(async () => {
    if (plane) {
      await call('DELETE', '/labs/api').catch(() => undefined);
      await plane.stop();
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('re-attaches to the running lab after a control-plane restart', async () => {
    await plane.stop();
    plane = await startControlPlane({ home });
    const { body } = await call('GET', '/labs/api');
    expect(body.status).toBe('ready');
    expect(body.nodes.find((n: { name: string }) => n.name === 'bob').channels[0].active).toBe(true);
    const mined = await call('POST', '/labs/api/mine?wait=true', { blocks: 2 });
    expect(mined.body.state).toBe('completed');
  });

  it('shows a lab whose service died while the control plane was down as degraded, then restarts it with its channels', async () => {
    await plane.stop();
    const carol = plane.manager.get('api').services.carol;
    if (carol.handle?.runtime !== 'process') throw new Error('expected a process lab');
    await stopProcessGroup(carol.handle.pid, 10_000, 'SIGKILL');
    plane = await startControlPlane({ home });
    const { body } = await call('GET', '/labs/api');
    expect(body.status).toBe('degraded');
    expect(body.services.find((s: { name: string }) => s.name === 'carol')).toMatchObject({
      status: expect.stringMatching(/^(failed|restarting)$/),
      error: expect.stringContaining('no longer running'),
    });
    const paid = await waitFor(
      async () => {
        const lab = (await call('GET', '/labs/api')).body;
        if (lab.status !== 'ready') return false;
        const payment = await call('POST', '/labs/api/payments?wait=true', {
          from: 'alice',
          to: 'carol',
          amount_sat: 1_000,
        });
        return payment.body.state === 'completed' && payment.body;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'carol back with its channel' },
    );
    expect(paid.result.hops).toBe(2);
    expect(
      (await call('GET', '/labs/api')).body.services.find((s: { name: string }) => s.name === 'carol').restarts,
    ).toBe(1);
  });

  it('deletes the lab leaving no process and no port', async () => {
    const { body } = await call('GET', '/labs/api');
    const ports = body.services.flatMap((s: { ports: Record<string, number> }) => Object.values(s.ports));
    const { manager } = plane;
    const pids = Object.values(manager.get('api').services).map((s) =>
      s.handle?.runtime === 'process' ? s.handle.pid : 0,
    );
    expect((await call('DELETE', '/labs/api')).status).toBe(200);
    for (const pid of pids) expect(isRunning(pid)).toBe(false);
    for (const port of ports) expect(await isListening(port)).toBe(false);
    expect((await call('GET', '/labs')).body.labs).toEqual([]);
  });
});
