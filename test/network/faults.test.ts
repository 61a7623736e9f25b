// Network faults between the nodes of a lab with `network: { faults: true }`, as users drive them
// through the control plane: the mixed lab (alice lnd -> bob ldk -> carol lnd), each link through
// its Toxiproxy proxy; a delay, resets, a partition and the heal; toxiproxy killed and restarted.
import { readFileSync } from 'node:fs';
import { getPeers } from 'ln-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectLnd } from '../../lib/lightning/lnd/connection.js';
import { waitFor } from '../../lib/wait.js';
import type { LabEvent } from '../../control-plane/src/lab/events.js';
import { bringUpLab, collectEvents, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { faultsLabYaml, networkScenarioFailures, type ProxyStatus } from './faults-lab.js';
import { launchChromium, openPage } from '../support/chromium.js';

const LAB = 'netfaults';
const YAML = faultsLabYaml(LAB, 'process');

interface NetStatus {
  faults: boolean;
  links: { between: [string, string]; description: string; proxies: ProxyStatus[] }[];
  cutOff: string[];
}

/** The command line of a process, by its pid. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');

describe('network faults on a lab of lnd and LDK nodes', () => {
  let cp: TestControlPlane;
  let watched: { events: LabEvent[]; stop(): void };
  const net = async (): Promise<NetStatus> => (await cp.call('GET', `/labs/${LAB}/net`)).body;
  const proxy = async (name: string) =>
    (await net()).links.flatMap((link) => link.proxies).find((candidate) => candidate.name === name)!;
  const pairOf = async (a: string, b: string) =>
    (await net()).links.find((link) => link.between.join('|') === [a, b].sort().join('|'))!;
  const channelActive = async (node: string, partner: string) =>
    (await cp.call('GET', `/labs/${LAB}/nodes/${node}`)).body.channels.find(
      (channel: { partner: string }) => channel.partner === partner,
    )?.active as boolean | undefined;
  const waitChannel = (node: string, partner: string, active: boolean) =>
    waitFor(async () => (await channelActive(node, partner)) === active, {
      timeoutMs: 90_000,
      intervalMs: 250,
      what: `${node}'s channel with ${partner} to be ${active ? 'active' : 'inactive'}`,
    });
  const pay = (from: string, to: string) =>
    cp.call('POST', `/labs/${LAB}/payments?wait=true`, { from, to, amount_sat: 1_000 });
  const lab = () => cp.plane.manager.get(LAB);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, YAML, LAB);
    watched = collectEvents(`${cp.plane.url}/labs/${LAB}/events`);
  });

  afterAll(async () => {
    watched?.stop();
    await cp?.stop();
  });

  it('sends every link through its proxy: lnd reaches btcd and its peers at their proxies', async () => {
    const status = await net();
    expect(status.faults).toBe(true);
    expect(status.links.map((link) => `${link.between.join('|')} ${link.description}`)).toEqual([
      'alice|bob no fault',
      'alice|carol no fault',
      'alice|chain no fault',
      'bob|carol no fault',
      'bob|indexer no fault',
      'carol|chain no fault',
    ]);
    const services = lab().services;
    expect(services.toxiproxy).toMatchObject({ kind: 'toxiproxy', status: 'ready' });
    const toChain = await proxy('alice>chain:rpc');
    expect(toChain).toMatchObject({ enabled: true, upstream: `127.0.0.1:${services.chain.hostPorts.rpc}` });
    expect(commandLine((services.alice.handle as { pid: number }).pid)).toContain(`--btcd.rpchost=${toChain.listen}`);
    // alice opened her channel to bob: she dialled him, at the proxy of her link to him
    const credentials = lab().credentials!.alice;
    const { peers } = await getPeers({
      lnd: connectLnd({
        socket: `127.0.0.1:${services.alice.hostPorts.grpc}`,
        certBase64: credentials.certBase64,
        macaroonHex: credentials.macaroonHex,
      }),
    });
    expect(peers.find((peer) => peer.public_key === services.bob.info.pubkey)?.socket).toBe(
      (await proxy('alice>bob:p2p')).listen,
    );
  });

  it('delays alice–bob: Toxiproxy holds the delay both ways on both proxies, and alice pays carol over it', async () => {
    const set = await cp.call('POST', `/labs/${LAB}/net/delay`, { a: 'alice', b: 'bob', delay_ms: 200, jitter_ms: 20 });
    expect(set.status).toBe(200);
    expect(set.body.links).toEqual([
      { between: ['alice', 'bob'], fault: { latencyMs: 200, jitterMs: 20 }, description: 'delay 200 ms ± 20 ms' },
    ]);
    const pair = await pairOf('alice', 'bob');
    expect(pair.proxies.map((each) => each.name).sort()).toEqual(['alice>bob:p2p', 'bob>alice:p2p']);
    for (const each of pair.proxies)
      expect(each.toxics.map(({ type, stream, attributes }) => ({ type, stream, attributes }))).toEqual([
        { type: 'latency', stream: 'upstream', attributes: { latency: 200, jitter: 20 } },
        { type: 'latency', stream: 'downstream', attributes: { latency: 200, jitter: 20 } },
      ]);
    expect((await pairOf('bob', 'carol')).proxies.every((each) => each.toxics.length === 0)).toBe(true);
    const status = (await cp.call('GET', `/labs/${LAB}`)).body;
    expect(status.network).toEqual({
      links: [
        { between: ['alice', 'bob'], fault: { latencyMs: 200, jitterMs: 20 }, description: 'delay 200 ms ± 20 ms' },
      ],
      cutOff: [],
    });
    await waitFor(async () => watched.events.some((event) => event.type === 'network' && event.action === 'delay'), {
      timeoutMs: 5_000,
      what: 'the network event of the delay',
    });
    const paid = await pay('alice', 'carol');
    expect(paid.body).toMatchObject({ state: 'completed', result: { amountSat: 1_000, hops: 2 } });
    const healed = await cp.call('POST', `/labs/${LAB}/net/heal`, { a: 'alice', b: 'bob' });
    expect(healed.body.links).toEqual([{ between: ['alice', 'bob'], description: 'no fault' }]);
    expect((await pairOf('alice', 'bob')).proxies.every((each) => each.toxics.length === 0)).toBe(true);
  });

  it('cuts carol off from the other nodes: payments to her fail with the reason, and the heal brings them back', async () => {
    const cut = await cp.call('POST', `/labs/${LAB}/net/partition`, { a: 'carol' });
    expect(cut.status).toBe(200);
    expect(cut.body.links.map((link: { between: string[] }) => link.between.join('|'))).toEqual([
      'alice|carol',
      'bob|carol',
    ]);
    const status = await net();
    expect(status.cutOff).toEqual(['carol']);
    for (const name of ['bob>carol:p2p', 'carol>bob:p2p', 'alice>carol:p2p', 'carol>alice:p2p'])
      expect((await proxy(name)).enabled).toBe(false);
    // she still follows the chain: her link to btcd is not cut
    expect((await proxy('carol>chain:rpc')).enabled).toBe(true);
    await waitChannel('bob', 'carol', false);
    const refused = await pay('bob', 'carol');
    expect(refused.body.state).toBe('failed');
    expect(refused.body.error).toMatch(/LDK found no way to send it/);

    const healed = await cp.call('POST', `/labs/${LAB}/net/heal`, { a: 'carol' });
    expect(healed.body.links.every((link: { description: string }) => link.description === 'no fault')).toBe(true);
    expect((await net()).cutOff).toEqual([]);
    await waitChannel('bob', 'carol', true);
    expect((await pay('bob', 'carol')).body).toMatchObject({ state: 'completed', result: { amountSat: 1_000 } });
    expect((await pay('alice', 'carol')).body).toMatchObject({ state: 'completed', result: { hops: 2 } });
    // cut off on purpose is not sick: the supervisor left her running
    expect(lab().services.carol).toMatchObject({ status: 'ready', restarts: 0 });
  });

  it('resets the connections of a lossy link until it is healed', async () => {
    await cp.call('POST', `/labs/${LAB}/net/loss`, { a: 'alice', b: 'bob', percent: 100 });
    expect((await proxy('alice>bob:p2p')).toxics).toEqual([
      { name: 'reset', type: 'reset_peer', stream: 'upstream', toxicity: 1, attributes: { timeout: 0 } },
    ]);
    await waitChannel('alice', 'bob', false);
    await cp.call('POST', `/labs/${LAB}/net/heal`, { a: 'alice', b: 'bob' });
    expect((await proxy('alice>bob:p2p')).toxics).toEqual([]);
    await waitChannel('alice', 'bob', true);
  });

  it('gives a restarted Toxiproxy its links and their faults back', async () => {
    await cp.call('POST', `/labs/${LAB}/net/delay`, { a: 'bob', b: 'carol', delay_ms: 50 });
    const before = lab().services.toxiproxy.handle;
    expect((await cp.call('POST', `/labs/${LAB}/services/toxiproxy/kill`)).status).toBe(200);
    await waitFor(
      async () => lab().services.toxiproxy.status === 'ready' && lab().services.toxiproxy.handle !== before,
      { timeoutMs: 60_000, what: 'toxiproxy restarted by the supervisor' },
    );
    const pair = await pairOf('bob', 'carol');
    expect(pair.description).toBe('delay 50 ms');
    expect(pair.proxies.every((each) => each.toxics.some((toxic) => toxic.attributes.latency === 50))).toBe(true);
    // the restart cut every link: once the lab shows its nodes ready again, a payment crosses both channels
    await waitFor(async () => ['alice', 'bob', 'carol'].every((node) => lab().services[node].status === 'ready'), {
      timeoutMs: 60_000,
      what: 'the nodes ready again',
    });
    expect((await pay('alice', 'carol')).body).toMatchObject({ state: 'completed', result: { hops: 2 } });
    await cp.call('POST', `/labs/${LAB}/net/heal`, {});
    expect((await net()).links.every((link) => link.description === 'no fault')).toBe(true);
  });

  it("passes the library's network scenario: a delayed link, a node cut off and healed", async () => {
    expect(await networkScenarioFailures(cp.plane.url, LAB)).toEqual([]);
    expect((await net()).links.every((link) => link.description === 'no fault')).toBe(true);
  });

  it('shows the faults on the dashboard: a faulty link drawn with its fault in words, a node cut off framed so', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // the page follows the lab's events once it shows the lab: a change made before would not be in its activity
      await openPage(page, `${cp.plane.url}/`, '#live[data-live="true"]', 60_000);
      await page.locator('#graph [data-node="carol"]').waitFor({ timeout: 30_000 });
      const drawn = (between: string) => page.locator(`#graph .link-fault[data-between="${between}"]`);
      await cp.call('POST', `/labs/${LAB}/net/delay`, { a: 'alice', b: 'bob', delay_ms: 200 });
      await drawn('alice|bob').waitFor({ timeout: 30_000 });
      expect(await drawn('alice|bob').locator('text').textContent()).toBe('delay 200 ms');
      await cp.call('POST', `/labs/${LAB}/net/partition`, { a: 'carol' });
      await page.locator('#graph .node[data-node="carol"][data-cut-off="true"]').waitFor({ timeout: 30_000 });
      // alice and carol share no channel: their cut link is drawn along a path of its own
      expect(await drawn('alice|carol').locator('text').textContent()).toBe('partitioned');
      expect(await drawn('bob|carol').locator('text').textContent()).toBe('partitioned');
      await cp.call('POST', `/labs/${LAB}/net/heal`, {});
      await page.locator('#graph .node[data-node="carol"][data-cut-off="false"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#graph .link-fault').count()).toBe(0);
      // the activity list hears of each change by the lab's events, not with the graph's redraw
      await page.locator('#activity li[data-type="network"]').nth(2).waitFor({ state: 'attached', timeout: 30_000 });
    } finally {
      await browser.close();
    }
    await waitChannel('bob', 'carol', true);
  });

  it('refuses faults it cannot set, in the one error body, and changes nothing', async () => {
    const refusals: [string, object, number, string][] = [
      ['delay', { a: 'alice', b: 'indexer', delay_ms: 10 }, 404, 'NO_SUCH_LINK'],
      ['delay', { a: 'zed', b: 'alice', delay_ms: 10 }, 404, 'NO_SUCH_NODE'],
      ['delay', { a: 'alice', b: 'bob', delay_ms: 10, jitter_ms: 20 }, 400, 'INVALID_JITTER'],
      ['delay', { a: 'alice', b: 'alice', delay_ms: 10 }, 400, 'SAME_NODE'],
      ['delay', { a: 'alice', b: 'bob', delay_ms: -1 }, 400, 'BAD_REQUEST'],
      ['loss', { a: 'alice', b: 'bob', percent: 120 }, 400, 'BAD_REQUEST'],
      ['partition', { a: 'chain' }, 400, 'NO_PEER_LINKS'],
      ['heal', { b: 'alice' }, 400, 'BAD_REQUEST'],
    ];
    for (const [action, body, status, code] of refusals) {
      const answer = await cp.call('POST', `/labs/${LAB}/net/${action}`, body);
      expect({ action, body, status: answer.status, code: answer.body.error?.code }).toEqual({
        action,
        body,
        status,
        code,
      });
      expect(answer.body.error.message).toEqual(expect.any(String));
    }
    expect((await net()).links.every((link) => link.description === 'no fault')).toBe(true);
  });
});
