// A docker lab whose container engine stops answering (Podman's service gone) while one of its
// services dies. The lab reaches the engine through a proxy of its socket, which the test cuts
// and restores; the service is killed through the engine itself, as a crash would end it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { discoverEngine } from '../../control-plane/src/runtimes/docker/engine.js';
import { containerName } from '../../control-plane/src/runtimes/docker/placement.js';
import { Supervisor } from '../../control-plane/src/supervisor/supervisor.js';
import { waitFor } from '../../lib/wait.js';
import { startSocketProxy, type Proxy } from '../support/proxy.js';
import { engine, labLeftovers, startDockerLab, uniqueLab, type DockerLab } from './support.js';

describe('a docker lab whose container engine stops answering', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reglab-engine-outage-'));
  const socket = join(dir, 'engine.sock');
  const events: Extract<LabEvent, { type: 'service' }>[] = [];
  let docker: Docker;
  let proxy: Proxy;
  let running: DockerLab;
  let supervisor: Supervisor;

  beforeAll(async () => {
    docker = await engine();
    const { address } = await discoverEngine({ env: {} });
    proxy = await startSocketProxy(address.replace(/^unix:\/\//, ''), socket);
    running = await startDockerLab({
      name: uniqueLab('eng'),
      indexer: { enabled: true },
      nodes: [],
      supervision: { max_restarts: 1, probe_interval_seconds: 1, unhealthy_after: 1 },
    }, { runtime: { discovery: { env: {}, sockets: [`unix://${socket}`] } } });
    supervisor = new Supervisor(running.session, {
      onEvent: (event) => { if (event.type === 'service') events.push(event); },
      persist: async () => undefined,
      livenessIntervalMs: 1_000,
    });
    supervisor.start();
  });

  afterAll(async () => {
    await proxy?.restore().catch(() => undefined);
    await supervisor?.stop();
    const lab = running?.lab.name;
    await running?.stop();
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
    if (lab) expect(await labLeftovers(docker, lab)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it('keeps a dead service restarting with what is wrong, not counting the attempts against max_restarts, and starts it once the engine is back', async () => {
    const indexer = running.lab.services.indexer;
    await proxy.cut();
    await docker.getContainer(containerName(running.lab.name, 'indexer')).kill();

    // max_restarts 1: a third attempt is one the limit would not have allowed
    const engineDown = /the container engine at unix:\/\/\S+engine\.sock does not answer .*scripts\/podman-setup\.sh/;
    const attempts = () => events.filter((event) => event.service === 'indexer' && event.status === 'restarting' && engineDown.test(event.message ?? ''));
    await waitFor(async () => attempts().length >= 3, { timeoutMs: 60_000, intervalMs: 100, what: 'three restarts of the indexer the engine did not answer' });
    expect(indexer.status).toBe('restarting');
    expect(indexer.restarts).toBe(0);
    expect(events.filter((event) => event.service === 'indexer' && event.status === 'failed')).toEqual([]);

    await proxy.restore();
    await waitFor(async () => indexer.status === 'ready', { timeoutMs: 90_000, intervalMs: 200, what: 'the indexer ready again once the engine answers' });
    expect(indexer.restarts).toBe(1);
  });
});
