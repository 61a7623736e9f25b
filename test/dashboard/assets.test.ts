// The dashboard of a lab with rgb nodes shows what each holds of the lab's RGB assets, and follows
// a transfer; the assets column appears only where nodes hold assets.
// Its own labs: rgb nodes and assets, which the default lab has not.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bringUpLab, startTestControlPlane, type TestControlPlane } from '../support/control-plane.js';
import { launchChromium, openPage } from '../support/chromium.js';

const LAB = `name: dash-assets
nodes:
  - { name: issuer, kind: rgb, funding_sat: 1000000 }
  - { name: holder, kind: rgb, funding_sat: 1000000 }
assets:
  - { ticker: LAB, supply: 1000, issuer: issuer, distribute: { holder: 300 } }
  - { ticker: GOLD, schema: cfa, supply: 5000, issuer: holder }
`;
const UI_MS = 30_000;

describe('dashboard: the assets of rgb nodes', () => {
  let cp: TestControlPlane;
  let browser: Browser;
  let page: Page;
  const held = (node: string, ticker: string) =>
    page.locator(`#nodes tr[data-node="${node}"] .assets li[data-asset="${ticker}"]`);

  beforeAll(async () => {
    cp = await startTestControlPlane();
    await bringUpLab(cp, LAB, 'dash-assets');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await openPage(page, `${cp.plane.url}/?lab=dash-assets`, '#live[data-live="true"]', UI_MS);
  });
  afterAll(async () => {
    await browser?.close();
    await cp?.stop();
  });

  it("lists each node's settled balance of each asset, as GET /labs/{name} reports it", async () => {
    await held('holder', 'GOLD').waitFor({ timeout: UI_MS });
    expect(await page.locator('table.nodes th.assets-col').isVisible()).toBe(true);
    expect(await held('issuer', 'LAB').textContent()).toBe('700 LAB');
    expect(await held('holder', 'LAB').textContent()).toBe('300 LAB');
    expect(await held('holder', 'GOLD').textContent()).toBe('5,000 GOLD');
    expect(await page.locator('#nodes tr[data-node="issuer"] .assets li').count()).toBe(1);
    const { body } = await cp.call('GET', '/labs/dash-assets');
    const issuer = body.nodes.find((node: { name: string }) => node.name === 'issuer');
    expect(await held('issuer', 'LAB').getAttribute('title')).toBe(
      issuer.assets.find((asset: { ticker: string }) => asset.ticker === 'LAB').assetId,
    );
  });

  it('follows a transfer made through the API', async () => {
    const sent = await cp.call('POST', '/labs/dash-assets/assets/send', {
      from: 'holder',
      to: 'issuer',
      asset: 'LAB',
      amount: 120,
    });
    expect(sent.status).toBe(202);
    await page
      .locator('#nodes tr[data-node="holder"] .assets li[data-asset="LAB"][data-settled="180"]')
      .waitFor({ timeout: UI_MS });
    await page
      .locator('#nodes tr[data-node="issuer"] .assets li[data-asset="LAB"][data-settled="820"]')
      .waitFor({ timeout: UI_MS });
    expect(await held('issuer', 'LAB').textContent()).toBe('820 LAB');
  });

  it('has no assets column for a lab whose nodes hold none', async () => {
    await bringUpLab(cp, 'name: dash-plain\nindexer: { enabled: false }\nnodes:\n  - { name: alice }\n', 'dash-plain');
    await page.goto(`${cp.plane.url}/?lab=dash-plain`);
    await page.locator('#nodes tr[data-node="alice"] .chain-balance', { hasText: 'sat' }).waitFor({ timeout: UI_MS });
    expect(await page.locator('table.nodes th.assets-col').isHidden()).toBe(true);
    expect(await page.locator('#nodes tr[data-node="alice"] td.assets-col').isHidden()).toBe(true);
  });
});
