// The dashboard in headless Chromium, on the default lab run by an in-process control plane:
// what the page shows is compared with what the API reports, and its actions change the lab.
// Its own lab and control plane: the page kills a service and opens and closes channels, and the
// control plane is started again as its keeper would, and served with a token beside.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildControlPlaneApp } from '../../control-plane/src/api/app.js';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import { waitFor } from '../../lib/wait.js';
import { launchChromium, openPage } from '../support/chromium.js';

const LAB = readFileSync('lab.yaml', 'utf8').replace(/^name: default$/m, 'name: dash');
// docs/dashboard.md shows these: REGLAB_SCREENSHOTS=docs/images npx vitest run test/dashboard renews
// them; a plain test run writes them aside and removes them, so it leaves the repository as it was
const SCREENSHOTS = process.env.REGLAB_SCREENSHOTS
  ? resolve(process.env.REGLAB_SCREENSHOTS)
  : mkdtempSync(join(tmpdir(), 'reglab-dashboard-'));
const FAUCET_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const UI_MS = 30_000;

interface NodeView {
  name: string;
  chainBalanceSat: number;
  channelBalanceSat: number;
  channels: { partner: string; capacitySat: number; localSat: number; remoteSat: number }[];
}
interface LabView {
  status: string;
  chain: { height: number };
  nodes: NodeView[];
}

const sat = (amount: number) => `${amount.toLocaleString('en-US')} sat`;

describe('dashboard on the default lab', () => {
  let home: string;
  let plane: RunningControlPlane;
  let browser: Browser;
  let page: Page;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${plane.url}${path}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: await response.json() };
  };
  const labView = async () => (await api('GET', '/labs/dash')).body as LabView;
  const shownHeight = async () => Number(await page.textContent('#chain-height'));
  const channelItem = (from: string, to: string) => page.locator(`#channels li[data-from="${from}"][data-to="${to}"]`);
  const sideSat = async (from: string, to: string, side: 'localSat' | 'remoteSat') =>
    Number(await channelItem(from, to).getAttribute(`data-${side === 'localSat' ? 'local' : 'remote'}-sat`));
  const outcome = (form: string) => page.locator(`#${form} .outcome`);
  const finished = (form: string) =>
    page.locator(`#${form} .outcome:is([data-kind="ok"], [data-kind="error"])`).waitFor({ timeout: 120_000 });
  const screenshot = (name: string) =>
    page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'reglab-home-'));
    chmodSync(home, 0o755);
    mkdirSync(SCREENSHOTS, { recursive: true });
    plane = await startControlPlane({ home });
    expect((await api('POST', '/labs', { yaml: LAB })).status).toBe(202);
    await waitFor(
      async () => {
        const view = await labView();
        if (view.status === 'failed') throw new Error(JSON.stringify(view));
        return view.status === 'ready';
      },
      { timeoutMs: 180_000, what: 'lab dash to be ready', stopOn: (error) => String(error).includes('"failed"') },
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await openPage(page, `${plane.url}/?lab=dash`, '#live[data-live="true"]', UI_MS);
  });

  afterAll(async () => {
    await browser?.close();
    if (plane) {
      await api('DELETE', '/labs/dash').catch(() => undefined);
      await plane.stop();
    }
    rmSync(home, { recursive: true, force: true });
    if (!process.env.REGLAB_SCREENSHOTS) rmSync(SCREENSHOTS, { recursive: true, force: true });
  });

  it('draws three nodes and two channels with the balances the API reports', async () => {
    const view = await labView();
    expect(view.nodes.map((node) => node.name)).toEqual(['alice', 'bob', 'carol']);
    await page.locator('#graph [data-node]').nth(2).waitFor({ timeout: UI_MS });
    expect(await page.locator('#graph [data-node]').count()).toBe(3);
    expect(await page.locator('#graph .channel').count()).toBe(2);
    expect(await shownHeight()).toBe(view.chain.height);
    for (const node of view.nodes) {
      const row = page.locator(`#nodes tr[data-node="${node.name}"]`);
      expect(await row.locator('.chain-balance').textContent()).toBe(sat(node.chainBalanceSat));
      expect(await row.locator('.channel-balance').textContent()).toBe(sat(node.channelBalanceSat));
    }
    // each channel as the first of its two nodes reports it: alice -> bob, bob -> carol
    for (const [from, to] of [
      ['alice', 'bob'],
      ['bob', 'carol'],
    ]) {
      const channel = view.nodes
        .find((node) => node.name === from)!
        .channels.find((candidate) => candidate.partner === to)!;
      expect(await channelItem(from, to).locator('.capacity').textContent()).toBe(sat(channel.capacitySat));
      expect(await channelItem(from, to).locator('.side-local').textContent()).toBe(`${from} ${sat(channel.localSat)}`);
      expect(await channelItem(from, to).locator('.side-remote').textContent()).toBe(`${to} ${sat(channel.remoteSat)}`);
      const bar = page.locator(`#graph .channel[data-from="${from}"][data-to="${to}"]`);
      expect(await bar.getAttribute('data-local-sat')).toBe(String(channel.localSat));
    }
    expect(await page.locator('#services [data-status="ready"]').count()).toBe(10);
    await screenshot('lab');
  });

  it('mines three blocks from the keyboard alone and shows the new height', async () => {
    const before = await shownHeight();
    // Tab through the page to the blocks field, as a keyboard user would
    await waitFor(
      async () => {
        await page.keyboard.press('Tab');
        return (await page.evaluate(() => document.activeElement?.id)) === 'mine-blocks';
      },
      { timeoutMs: 20_000, intervalMs: 0, what: 'Tab to reach the blocks field' },
    );
    await page.keyboard.press('Control+A');
    await page.keyboard.type('3');
    await page.keyboard.press('Enter');
    await finished('mine-form');
    expect(await outcome('mine-form').textContent()).toBe(`Mined 3 blocks: the chain is at height ${before + 3}.`);
    await waitFor(async () => (await shownHeight()) === before + 3, {
      timeoutMs: UI_MS,
      what: 'the page to show the new height',
    });
    expect((await labView()).chain.height).toBe(before + 3);
  });

  it('pays alice -> carol from the page and moves both channel bars', async () => {
    const aliceBefore = await sideSat('alice', 'bob', 'localSat');
    const carolBefore = await sideSat('bob', 'carol', 'remoteSat');
    const barBefore = await channelItem('bob', 'carol')
      .locator('.bar-local')
      .evaluate((bar) => bar.getBoundingClientRect().width);
    await page.selectOption('#pay-from', 'alice');
    await page.selectOption('#pay-to', 'carol');
    await page.fill('#pay-amount', '1500000');
    await page.click('#pay-form button[type="submit"]');
    await finished('pay-form');
    expect(await outcome('pay-form').textContent()).toMatch(
      /^alice paid carol 1,500,000 sat over 2 hops, fee [\d,]+ sat\.$/,
    );
    await waitFor(async () => (await sideSat('bob', 'carol', 'remoteSat')) === carolBefore + 1_500_000, {
      timeoutMs: UI_MS,
      what: "carol's side of bob -> carol to grow by the payment",
    });
    expect(await sideSat('alice', 'bob', 'localSat')).toBeLessThanOrEqual(aliceBefore - 1_500_000);
    // bob's part of bob -> carol shrank by 30 %: the bar is visibly shorter
    const barAfter = await waitFor(
      async () => {
        const width = await channelItem('bob', 'carol')
          .locator('.bar-local')
          .evaluate((bar) => bar.getBoundingClientRect().width);
        return width < barBefore * 0.75 ? width : undefined;
      },
      { timeoutMs: UI_MS, what: "bob's bar to shrink" },
    );
    expect(barAfter).toBeGreaterThan(0);
    const view = await labView();
    const carol = view.nodes.find((node) => node.name === 'carol')!;
    expect(await page.locator('#nodes tr[data-node="carol"] .channel-balance').textContent()).toBe(
      sat(carol.channelBalanceSat),
    );
    await screenshot('payment');
  });

  it('shows the payment activity: its outcomes and its failures by reason, as the API counts them', async () => {
    const started = await api('POST', '/labs/dash/activity', {
      flows: [
        { from: 'alice', to: 'carol', amount_sat: 1000, interval_seconds: 0.2, count: 6 },
        // more than any channel holds: these fail
        { from: 'bob', to: 'alice', amount_sat: 6_000_000, interval_seconds: 0.2, count: 2 },
      ],
    });
    expect(started.status).toBe(200);
    const panel = page.locator('#payments');
    await panel.locator('[data-figure="succeeded"] dd').waitFor({ timeout: UI_MS });
    let ended:
      | {
          running: boolean;
          inFlight: number;
          succeeded: number;
          failed: number;
          failuresByReason: Record<string, number>;
        }
      | undefined;
    await waitFor(
      async () => {
        ended = (await api('GET', '/labs/dash/activity')).body;
        return !ended!.running && ended!.inFlight === 0;
      },
      { timeoutMs: 60_000, what: 'the flows to end' },
    );
    expect(ended).toMatchObject({ succeeded: 6, failed: 2 });
    await waitFor(async () => (await panel.getAttribute('data-running')) === 'false', {
      timeoutMs: UI_MS,
      what: 'the page to show the activity stopped',
    });
    expect(await panel.locator('[data-figure="succeeded"] dd').textContent()).toBe('6');
    expect(await panel.locator('[data-figure="failed"] dd').textContent()).toBe('2');
    expect(await panel.locator('.payments-state').textContent()).toContain('(every flow sent its payments)');
    const rows = await panel
      .locator('.payments-failures tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-reason'), tr.querySelector('.count')?.textContent]));
    expect(rows.sort()).toEqual(
      Object.entries(ended!.failuresByReason)
        .map(([reason, count]) => [reason, String(count)])
        .sort(),
    );
    // the activity's payments are counted in its panel, not listed one by one among the events
    expect(await page.locator('#activity li', { hasText: 'alice paid carol 1,000 sat' }).count()).toBe(0);
    await screenshot('payment-activity');
  });

  it("answers bad input with the API's error and changes nothing", async () => {
    const before = (await labView()).chain.height;
    await page.fill('#fund-target', 'zed');
    await page.fill('#fund-amount', '1000');
    await page.click('#fund-form button[type="submit"]');
    await finished('fund-form');
    expect(await outcome('fund-form').getAttribute('data-kind')).toBe('error');
    expect(await outcome('fund-form').textContent()).toContain('"zed" is not a regtest address');
    expect((await labView()).chain.height).toBe(before);
  });

  it("funds bob and claims from the lab's faucet, each confirmed in a block", async () => {
    const view = await labView();
    const bob = view.nodes.find((node) => node.name === 'bob')!;
    await page.fill('#fund-target', 'bob');
    await page.fill('#fund-amount', '250000');
    await page.click('#fund-form button[type="submit"]');
    await finished('fund-form');
    expect(await outcome('fund-form').textContent()).toMatch(
      new RegExp(
        `^Sent 250,000 sat to bob in [0-9a-f]{8}…[0-9a-f]{6}, confirmed at height ${view.chain.height + 1}\\.$`,
      ),
    );
    await waitFor(
      async () =>
        (await page.textContent('#nodes tr[data-node="bob"] .chain-balance')) === sat(bob.chainBalanceSat + 250_000),
      { timeoutMs: UI_MS, what: "bob's on-chain balance to grow" },
    );

    await page.fill('#faucet-address', FAUCET_ADDRESS);
    await page.click('#faucet-form button[type="submit"]');
    await finished('faucet-form');
    expect(await outcome('faucet-form').textContent()).toMatch(
      new RegExp(
        `^The faucet sent 100,000 sat to ${FAUCET_ADDRESS} in .+, confirmed in block ${view.chain.height + 2}\\.$`,
      ),
    );
    await waitFor(async () => (await shownHeight()) === view.chain.height + 2, {
      timeoutMs: UI_MS,
      what: "the faucet's block on the page",
    });
  });

  it('opens a channel carol -> alice from the page and draws it', async () => {
    await page.selectOption('#open-from', 'carol');
    await page.selectOption('#open-to', 'alice');
    await page.fill('#open-capacity', '600000');
    await page.fill('#open-push', '100000');
    await page.click('#open-form button[type="submit"]');
    await finished('open-form');
    expect(await outcome('open-form').textContent()).toMatch(/^The channel carol → alice of 600,000 sat is open/);
    // alice comes first in the lab, so the page shows it as alice -> carol, with alice's 100,000
    await channelItem('alice', 'carol').waitFor({ timeout: UI_MS });
    expect(await sideSat('alice', 'carol', 'localSat')).toBe(100_000);
    expect(await page.locator('#graph .channel').count()).toBe(3);
    await screenshot('channel');
  });

  it('closes the channel alice -> carol from the page', async () => {
    await page.selectOption('#close-channel', { label: 'alice ⟷ carol, 600,000 sat' });
    await page.click('#close-form button[type="submit"]');
    await finished('close-form');
    expect(await outcome('close-form').textContent()).toMatch(
      /^The channel alice ⟷ carol is closed in [0-9a-f]{8}…[0-9a-f]{6}\.$/,
    );
    await waitFor(async () => (await page.locator('#graph .channel').count()) === 2, {
      timeoutMs: UI_MS,
      what: 'the closed channel to leave the graph',
    });
    expect(await channelItem('alice', 'carol').count()).toBe(0);
  });

  it("shows a service's last log lines on request", async () => {
    const chain = page.locator('#services li[data-service="chain"]');
    await chain.locator('summary').click();
    await chain.getByRole('button', { name: 'Show log' }).click();
    await chain.locator('pre.logs:not([hidden])').waitFor({ timeout: UI_MS });
    expect((await chain.locator('pre.logs').textContent())!.length).toBeGreaterThan(20);
    await chain.getByRole('button', { name: 'Hide log' }).click();
    expect(await chain.locator('pre.logs').isHidden()).toBe(true);
  });

  it("shows alice's credentials, each with a copy button that copies it", async () => {
    const expected = (await api('GET', '/labs/dash/services/alice/credentials')).body as Record<string, string>;
    expect(expected.macaroonHex).toMatch(/^[0-9a-f]+$/);
    const alice = page.locator('#services li[data-service="alice"]');
    await alice.locator('summary').click();
    await alice.getByRole('button', { name: 'Show credentials' }).click();
    const credentials = alice.locator('dl.credentials:not([hidden])');
    await credentials.waitFor({ timeout: UI_MS });
    expect(await credentials.locator('dt').allTextContents()).toEqual(Object.keys(expected));
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: plane.url });
    await credentials.getByRole('button', { name: 'Copy alice macaroonHex' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected.macaroonHex);
    await alice.getByRole('button', { name: 'Hide credentials' }).click();
    expect(await alice.locator('dl.credentials dd').count()).toBe(0);
  });

  it('turns a service killed from outside red, then green again when the supervisor has restarted it', async () => {
    const item = page.locator('#services li[data-service="carol"]');
    expect(await item.getAttribute('data-status')).toBe('ready');
    // every status the page shows for carol and for the lab, as the page changes them
    const shown: string[] = [];
    await page.exposeFunction('recordStatus', (status: string) => shown.push(status));
    await page.evaluate(() => {
      const record = (window as unknown as { recordStatus(status: string): void }).recordStatus;
      const carol = document.querySelector<HTMLElement>('#services li[data-service="carol"]')!;
      const lab = document.querySelector<HTMLElement>('#lab-status')!;
      new MutationObserver(() => record(`carol ${carol.dataset.status}`)).observe(carol, {
        attributeFilter: ['data-status'],
      });
      new MutationObserver(() => record(`lab ${lab.dataset.status}`)).observe(lab, {
        attributeFilter: ['data-status'],
      });
    });
    const handle = plane.manager.get('dash').services.carol.handle;
    if (handle?.runtime !== 'process') throw new Error('expected carol to run as a process');
    process.kill(handle.pid, 'SIGKILL');

    await page
      .locator('#services li[data-service="carol"]:is([data-status="restarting"], [data-status="failed"])')
      .waitFor({ timeout: UI_MS });
    expect(await page.locator('#graph [data-node="carol"]').getAttribute('data-status')).toMatch(
      /^(restarting|failed)$/,
    );
    expect(await item.locator('.dot').evaluate((dot) => getComputedStyle(dot).backgroundColor)).toBe(
      'rgb(210, 60, 60)',
    );
    // opened, the service says why it is down, with the last lines of its log
    await item.locator('summary').click();
    await screenshot('failure');
    expect(await page.locator('#activity li', { hasText: 'carol: restarting' }).first().textContent()).toContain(
      'killed by SIGKILL',
    );
    await page.locator('#services li[data-service="carol"][data-status="ready"]').waitFor({ timeout: 120_000 });
    await waitFor(async () => (await page.getAttribute('#lab-status', 'data-status')) === 'ready', {
      timeoutMs: 120_000,
      what: 'the lab to be ready again',
    });
    // red first (after the renders of other events, which leave it ready), ready at the end
    const carol = shown.filter((status) => status.startsWith('carol '));
    const firstRed = carol.findIndex((status) => /^carol (restarting|failed)$/.test(status));
    expect(firstRed).toBeGreaterThanOrEqual(0);
    expect(carol.slice(firstRed + 1)).toContain('carol ready');
    expect(carol.at(-1)).toBe('carol ready');
    expect(shown).toContain('lab degraded');
    expect(await item.locator('.dot').evaluate((dot) => getComputedStyle(dot).backgroundColor)).toBe(
      'rgb(27, 154, 83)',
    );
    await item.locator('.status', { hasText: /^ready · restarted [1-9]\d*×$/ }).waitFor({ timeout: UI_MS });
  });

  it('tells in its activity of a control plane its keeper started again, and follows the new one on the same address', async () => {
    const port = Number(new URL(plane.url).port);
    await plane.stop();
    await page.locator('#live[data-live="false"]').waitFor({ timeout: UI_MS });
    // what control-plane/keeper.sh gives the control plane it starts again
    Object.assign(process.env, {
      REGLAB_CONTROL_PLANE_ENDED: 'killed by signal 9 at 2026-11-27T08:00:00Z',
      REGLAB_CONTROL_PLANE_RESTARTS: '1',
    });
    try {
      plane = await startControlPlane({ home, port });
    } finally {
      delete process.env.REGLAB_CONTROL_PLANE_ENDED;
      delete process.env.REGLAB_CONTROL_PLANE_RESTARTS;
    }
    await page.locator('#live[data-live="true"]').waitFor({ timeout: UI_MS });
    await page
      .locator('#activity li', {
        hasText:
          'control plane started again by its keeper; the last one ended: killed by signal 9 at 2026-11-27T08:00:00Z',
      })
      .waitFor({ timeout: UI_MS });
    // and it runs the lab again: a block mined through it shows on the page
    const before = await shownHeight();
    expect((await api('POST', '/labs/dash/mine?wait=true', { blocks: 1 })).status).toBe(200);
    await waitFor(async () => (await shownHeight()) === before + 1, {
      timeoutMs: UI_MS,
      what: 'the new height on the page',
    });
  });

  it('is read-only without the token, hides what is secret, and unlocks with the token', async () => {
    // the control plane of the same lab, as `reglab up --listen` runs it: with a token
    const token = 'workshop-token-of-the-test';
    const guarded = await buildControlPlaneApp({
      manager: plane.manager,
      jobs: plane.jobs,
      token,
      shutdown: () => undefined,
    });
    const url = await guarded.listen({ host: '127.0.0.1', port: 0 });
    const room = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await room.goto(`${url}/?lab=dash`);
      await room.locator('#access:not([hidden])').waitFor({ timeout: UI_MS });
      expect(await room.textContent('#access-message')).toContain('read-only');
      await room.locator('#graph [data-node]').nth(2).waitFor({ timeout: UI_MS });
      expect(await room.locator('#action-forms').isHidden()).toBe(true);
      await room.locator('#services li[data-service="alice"] summary').click();
      expect(await room.locator('#services li[data-service="alice"] .info').isVisible()).toBe(true);
      expect(await room.getByRole('button', { name: 'Show credentials' }).count()).toBe(0);
      expect(await room.getByRole('button', { name: 'Restart' }).count()).toBe(0);
      await room.screenshot({ path: join(SCREENSHOTS, 'dashboard-read-only.png'), fullPage: false });

      await room.fill('#token', 'not-the-token');
      await room.press('#token', 'Enter');
      await room.locator('#access-message', { hasText: 'The token was refused' }).waitFor({ timeout: UI_MS });
      expect(await room.locator('#action-forms').isHidden()).toBe(true);

      // the link `reglab up` prints: the token after #, taken into the tab and off the address bar
      await room.goto(`${url}/?lab=dash#token=${token}`);
      await room.locator('#action-forms:not([hidden])').waitFor({ timeout: UI_MS });
      expect(room.url()).not.toContain(token);
      expect(await room.locator('#access').isHidden()).toBe(true);
      const before = await labView();
      await room.fill('#mine-blocks', '1');
      await room.click('#mine-form button[type="submit"]');
      await room.locator('#mine-form .outcome[data-kind="ok"]').waitFor({ timeout: 60_000 });
      expect((await labView()).chain.height).toBe(before.chain.height + 1);
    } finally {
      await room.close();
      await guarded.close();
    }
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const phone = await browser.newPage({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    try {
      await phone.goto(`${plane.url}/?lab=dash`);
      await phone.locator('#graph [data-node]').nth(2).waitFor({ timeout: UI_MS });
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await phone.screenshot({ path: join(SCREENSHOTS, 'dashboard-phone.png'), fullPage: false });
    } finally {
      await phone.close();
    }
  });
});
