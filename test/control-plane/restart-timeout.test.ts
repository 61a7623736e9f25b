// A restart attempt that times out: the supervisor gives it up, and with it the process it started.
// The chain node is frozen (SIGSTOP) while the lab's probes are rare, so the lab still counts it
// ready; the chain adapter is killed, and its restart, which asks the frozen node, never becomes
// ready. Left running, that attempt's process kept the adapter's port, and a later `reglab start`
// found it "ready" through the orphan while its own process died on EADDRINUSE.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../../control-plane/src/runtimes/process/child.js';
import { isListening } from '../../control-plane/src/util/ports.js';
import { waitFor } from '../../lib/wait.js';
import {
  bringUpLab,
  startTestControlPlane,
  type TestControlPlane,
  pidOf as pidOfService,
} from '../support/control-plane.js';

const LAB = 'stuck';
/** The start time-out asked for: long enough for these services to start on a loaded machine. */
const START_TIMEOUT_SECONDS = 20;
/**
 * The chain, the indexer and the chain adapter; one restart allowed; probes rarer than any wait here;
 * starts given up sooner than the default 90 s, which the attempt would otherwise sit through.
 */
const YAML = `name: ${LAB}
services:
  chain-adapter: {}
supervision:
  probe_interval_seconds: 300
  max_restarts: 1
  start_timeout_seconds: ${START_TIMEOUT_SECONDS}
`;

type Service = { name: string; status: string; error?: string; restarts: number; ports: Record<string, number> };

describe('a restart attempt that times out', () => {
  let cp: TestControlPlane;
  const service = async (name: string): Promise<Service> =>
    (await cp.call('GET', `/labs/${LAB}`)).body.services.find((found: Service) => found.name === name);
  const pidOf = (name: string) => pidOfService(cp, LAB, name);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
  });

  afterAll(async () => {
    await cp?.stop();
  });

  it('ends the process of the attempt it gave up: the port is free, and `start` then runs a process of its own', async () => {
    const port = (await service('chain-adapter')).ports.http;
    const chain = pidOf('chain');
    const attempts = new Set<number>();
    process.kill(chain, 'SIGSTOP');
    try {
      expect((await cp.call('POST', `/labs/${LAB}/services/chain-adapter/kill`)).status).toBe(200);
      const failed = await waitFor(
        async () => {
          attempts.add(pidOf('chain-adapter'));
          const adapter = await service('chain-adapter');
          return adapter.status === 'failed' && adapter;
        },
        { timeoutMs: 180_000, intervalMs: 500, what: 'the restart attempt to be given up' },
      );
      expect(failed.error).toContain('not restarted again');
      // given up after the lab's own supervision.start_timeout_seconds
      expect(failed.error).toContain(`timed out after ${START_TIMEOUT_SECONDS * 1_000} ms`);
      expect(failed.restarts).toBe(1);
      const attempt = pidOf('chain-adapter');
      attempts.add(attempt);
      expect(attempts.size, 'the killed process and the attempt').toBeGreaterThanOrEqual(2);
      expect(isRunning(attempt), `the given-up attempt (pid ${attempt}) still runs`).toBe(false);
      expect(await isListening(port), `port ${port} is still held`).toBe(false);
    } finally {
      process.kill(chain, 'SIGCONT');
    }

    const started = await cp.call('POST', `/labs/${LAB}/services/chain-adapter/start`);
    expect(started.body).toEqual({ service: 'chain-adapter', status: 'ready' });
    const own = pidOf('chain-adapter');
    expect(attempts.has(own)).toBe(false);
    const tip = await fetch(`http://127.0.0.1:${port}/api/blocks/tip/height`);
    expect(tip.status).toBe(200);
    await waitFor(async () => (await cp.call('GET', `/labs/${LAB}`)).body.status === 'ready', {
      timeoutMs: 30_000,
      what: 'the lab ready again',
    });
    expect(isRunning(own)).toBe(true);
    expect(await service('chain-adapter')).toMatchObject({ status: 'ready' });
  }, 300_000);
});
