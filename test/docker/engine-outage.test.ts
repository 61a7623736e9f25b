// A docker lab whose container engine stops answering (Podman's service gone) while one of its
// services dies, seen through a control plane as a user sees it: its events, GET /labs/{name},
// `reglab status` and its dashboard; then a control plane started while the engine is away. The
// control plane reaches the engine through a proxy of its socket (DOCKER_HOST), which the test
// cuts and restores; the service is killed through the engine itself, as a crash would end it.
// Its own docker lab, whose engine it cuts off and whose service it kills.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Page } from 'playwright-core';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { discoverEngine } from '../../control-plane/src/runtimes/docker/engine.js';
import { containerName } from '../../control-plane/src/runtimes/docker/placement.js';
import { waitFor } from '../../lib/wait.js';
import { chromiumForSuite, openPage } from '../support/chromium.js';
import { CLI, reglabIn, runIn } from '../support/cli.js';
import { collectEvents } from '../support/control-plane.js';
import { type Proxy as SocketProxy, startSocketProxy } from '../support/proxy.js';
import { engine, labLeftovers, uniqueLab } from './support.js';

const LAB = uniqueLab('eng');
const ENGINE_DOWN = /the container engine at unix:\/\/\S+engine\.sock does not answer .*scripts\/podman-setup\.sh/;

/**
 * `reglab ARGS` where Podman's socket is hidden (a mount namespace with an empty /run/podman), as
 * on a machine whose Podman service is stopped: a control plane it starts finds no engine at all.
 */
const reglabWithoutPodman = (folder: string, ...args: string[]) =>
  runIn(folder, 'unshare', [
    '--mount',
    'sh',
    '-c',
    'mount -t tmpfs tmpfs /run/podman && exec "$@"',
    'sh',
    process.execPath,
    CLI,
    ...args,
  ]);

describe('a docker lab whose container engine stops answering', () => {
  const folder = mkdtempSync(join(tmpdir(), 'reglab-engine-outage-'));
  const socket = join(folder, 'engine.sock');
  const reglab = reglabIn(() => folder);
  const dockerHost = process.env.DOCKER_HOST;
  let docker: Docker;
  let proxy: SocketProxy;
  let plane: RunningControlPlane;
  let planeStopped = false;
  let feed: ReturnType<typeof collectEvents>;
  let page: Page;
  const browser = chromiumForSuite();
  const call = async (method: string, path: string) => (await fetch(`${plane.url}${path}`, { method })).json();
  const indexer = async () =>
    (await call('GET', `/labs/${LAB}`)).services.find((service: { name: string }) => service.name === 'indexer');

  /** The indexer's container: the control plane knows its process from its start, without asking the engine again. */
  const indexerContainer = () => docker.getContainer(containerName(LAB, 'indexer'));

  beforeAll(async () => {
    chmodSync(folder, 0o755);
    docker = await engine();
    const { address } = await discoverEngine({ env: {} });
    proxy = await startSocketProxy(address.replace(/^unix:\/\//, ''), socket);
    process.env.DOCKER_HOST = `unix://${socket}`;
    mkdirSync(join(folder, '.reglab'));
    plane = await startControlPlane({ home: join(folder, '.reglab') });
    const yaml = stringify({
      name: LAB,
      runtime: 'docker',
      indexer: { enabled: true },
      nodes: [],
      supervision: { max_restarts: 2, probe_interval_seconds: 60, unhealthy_after: 1 },
    });
    writeFileSync(join(folder, 'lab.yaml'), yaml);
    const up = await reglab('up');
    expect(up.code, up.stdout + up.stderr).toBe(0);
    feed = collectEvents(`${plane.url}/labs/${LAB}/events`);
    page = await browser.newPage();
    await openPage(page, `${plane.url}/?lab=${LAB}`, '#live[data-live="true"]', 20_000);
  });

  afterAll(async () => {
    feed?.stop();
    await proxy?.restore().catch(() => undefined);
    if (plane && !planeStopped) await plane.stop();
    // by a control plane of its own, as a user would (the one in this process must not be asked to shut down: it ends
    // its process); --force with an engine that answers takes the lab down as without it: nothing may be left (below)
    await reglab('down', '--volumes', '--force');
    await proxy?.close();
    process.env.DOCKER_HOST = dockerHost;
    rmSync(folder, { recursive: true, force: true });
    expect(await labLeftovers(docker, LAB)).toEqual({ containers: [], networks: [], volumes: [] });
  });

  it('says so in its events, its status, `reglab status` and the dashboard, sees a service killed meanwhile at once, keeps it restarting uncounted against max_restarts, refuses to take the lab down, and starts it once the engine is back', async () => {
    await proxy.cut();
    await indexerContainer().kill();

    const engineEvents = () =>
      feed.events.filter((event): event is Extract<LabEvent, { type: 'engine' }> => event.type === 'engine');
    await waitFor(async () => engineEvents().length > 0, {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'an event saying the engine does not answer',
    });
    expect(engineEvents()[0]).toMatchObject({ lab: LAB, answering: false, address: `unix://${socket}` });
    expect(engineEvents()[0].message).toMatch(ENGINE_DOWN);

    // probes every 60 s: what sees the death within seconds is the liveness check, from the container's process
    const restarting = () =>
      feed.events.find(
        (event) => event.type === 'service' && event.service === 'indexer' && event.status === 'restarting',
      );
    await waitFor(async () => restarting() !== undefined, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the indexer seen dead while the engine does not answer',
    });
    expect((restarting() as { message: string }).message).toMatch(
      /^indexer stopped running: its process is gone; restarting \(restart 1\)/,
    );

    // max_restarts 2: a third attempt is one the limit would not have allowed
    const attempts = () =>
      feed.events.filter(
        (event) =>
          event.type === 'service' &&
          event.service === 'indexer' &&
          event.status === 'restarting' &&
          ENGINE_DOWN.test(event.message ?? ''),
      );
    await waitFor(async () => attempts().length >= 3, {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'three restarts of the indexer the engine did not answer',
    });
    const lab = await call('GET', `/labs/${LAB}`);
    expect(lab.engine).toMatchObject({ answering: false, address: `unix://${socket}` });
    expect(lab.engine.message).toMatch(ENGINE_DOWN);
    // the restart under way, as its events name it: counted once, however often the engine did not answer it
    expect(await indexer()).toMatchObject({ status: 'restarting', restarts: 1 });
    expect(
      feed.events.filter(
        (event) => event.type === 'service' && event.service === 'indexer' && event.status === 'failed',
      ),
    ).toEqual([]);

    // taking the lab down needs the engine: refused, with nothing changed
    const down = await fetch(`${plane.url}/labs/${LAB}?volumes=true`, { method: 'DELETE' });
    expect(down.status).toBe(503);
    expect((await down.json()).error).toMatchObject({
      code: 'CONTAINER_ENGINE_UNAVAILABLE',
      message: expect.stringMatching(ENGINE_DOWN),
    });
    expect((await call('GET', `/labs/${LAB}`)).status).toBe('degraded');

    const status = await reglab('status');
    expect(status.code).toBe(1);
    expect(status.stdout, status.stderr).toMatch(
      /container engine: not answering since \S+ \(the lab's containers run on; none can be started, stopped or restarted until it answers\): the container engine at unix:\/\/\S+engine\.sock does not answer/,
    );
    expect(status.stdout).toMatch(/indexer\s+indexer\s+restarting/);
    await page
      .locator('#notice', {
        hasText:
          /does not answer .* Since .*, the lab's containers run on but none can be started, stopped or restarted\./,
      })
      .waitFor({ timeout: 20_000 });
    await page.locator('#activity li', { hasText: ENGINE_DOWN }).first().waitFor({ timeout: 20_000 });

    await proxy.restore();
    await waitFor(async () => (await indexer()).status === 'ready', {
      timeoutMs: 90_000,
      intervalMs: 200,
      what: 'the indexer ready again once the engine answers',
    });
    expect((await indexer()).restarts).toBe(1);
    await waitFor(async () => engineEvents().some((event) => event.answering), {
      timeoutMs: 20_000,
      intervalMs: 100,
      what: 'an event saying the engine answers again',
    });
    expect((await call('GET', `/labs/${LAB}`)).engine).toMatchObject({ answering: true });
    const after = await reglab('status');
    expect(after.code, after.stdout).toBe(0);
    expect(after.stdout).not.toContain('container engine');
    await page.locator('#activity li', { hasText: 'the container engine answers again' }).waitFor({ timeout: 20_000 });
    await page.locator('#notice').waitFor({ state: 'hidden', timeout: 20_000 });
  });

  it('a control plane started while the engine does not answer starts all the same, says so, and takes the lab back once it answers', async () => {
    const restarts = (await indexer()).restarts;
    await proxy.cut();
    await indexerContainer().kill();
    await waitFor(async () => (await indexer()).status === 'restarting', {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the indexer seen dead',
    });
    feed.stop();
    await page.close();
    await plane.stop();
    planeStopped = true;

    const status = await reglabWithoutPodman(folder, 'status');
    expect(status.code, status.stderr).toBe(1);
    expect(status.stderr).toContain('starting it again');
    expect(status.stdout, status.stderr).toMatch(
      /container engine: not answering since \S+ .*: no Docker Engine API answers \(tried unix:\/\/\S+engine\.sock \(no socket\), .*unix:\/\/\/run\/podman\/podman\.sock \(no socket\)\)/,
    );
    expect(status.stdout).toMatch(/indexer\s+indexer\s+restarting/);
    expect(status.stdout).toMatch(/chain\s+btcd\s+ready/);

    await proxy.restore();
    const json = async () => JSON.parse((await reglab('status', '--json')).stdout);
    await waitFor(
      async () =>
        (await json()).services.find((service: { name: string }) => service.name === 'indexer').status === 'ready',
      { timeoutMs: 90_000, intervalMs: 500, what: 'the indexer ready again once the engine answers' },
    );
    const lab = await json();
    expect(lab.engine).toMatchObject({ answering: true, address: `unix://${socket}` });
    expect(lab.services.find((service: { name: string }) => service.name === 'indexer').restarts).toBe(restarts + 1);
    expect((await reglab('status')).code).toBe(0);
  });

  it('`reglab down --force` forgets a lab whose engine does not answer, says what it leaves there, and the next up of that lab on the engine removes it', async () => {
    const ids = async () =>
      (await docker.listContainers({ all: true, filters: { label: [`reglab.lab=${LAB}`] } })).map(
        (container) => container.Id,
      );
    const before = await labLeftovers(docker, LAB);
    const idsBefore = await ids();
    expect(before.containers.length).toBeGreaterThan(0);
    await proxy.cut();
    const refused = await reglab('down', '--volumes');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(ENGINE_DOWN);

    const forced = await reglab('down', '--volumes', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(
      new RegExp(
        `lab ${LAB} is forgotten: its container engine does not answer; its containers, network and volumes on unix://\\S+engine\\.sock \\(label reglab\\.lab=${LAB}\\) stay there`,
      ),
    );
    expect(existsSync(join(folder, '.reglab', 'labs', LAB))).toBe(false);
    expect(await labLeftovers(docker, LAB)).toEqual(before); // the engine itself was not asked anything

    await proxy.restore();
    const status = await reglab('status');
    expect(status.code).not.toBe(0);
    expect(status.stderr).toMatch(/no lab is up/);
    const up = await reglab('up');
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const after = await labLeftovers(docker, LAB);
    expect(after.containers.sort()).toEqual(before.containers.sort());
    expect((await ids()).filter((id) => idsBefore.includes(id))).toEqual([]);
  });
});
