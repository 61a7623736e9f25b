// A control plane that runs an older build of reglab than the one installed (reglab built again
// since it started) says so on /health, and the dashboard shows how to run the new build.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startControlPlane, type RunningControlPlane } from '../../control-plane/src/daemon.js';
import { chromiumForSuite, openPage } from '../support/chromium.js';

const STARTED_ON = '2026-11-01T10:00:00.000Z';
const BUILT_AGAIN = '2026-11-02T10:00:00.000Z';

describe('a control plane older than the reglab installed', () => {
  const chromium = chromiumForSuite();
  const running: { plane: RunningControlPlane; home: string }[] = [];

  const start = async (installed: string) => {
    const home = mkdtempSync(join(tmpdir(), 'reglab-build-'));
    chmodSync(home, 0o755);
    const plane = await startControlPlane({ home, builds: { running: STARTED_ON, installed: () => installed } });
    running.push({ plane, home });
    return plane;
  };

  afterEach(async () => {
    for (const { plane, home } of running.splice(0)) {
      await plane.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('says on /health when reglab was built again, and the dashboard says how to run the new build', async () => {
    const plane = await start(BUILT_AGAIN);
    expect(await (await fetch(`${plane.url}/health`)).json()).toMatchObject({
      status: 'ok',
      built: STARTED_ON,
      installedBuild: BUILT_AGAIN,
    });
    const page = await chromium.newPage();
    await openPage(page, `${plane.url}/`, '#build-notice:not([hidden])', 30_000);
    expect(await page.textContent('#build-notice')).toMatch(
      /^This control plane runs reglab as built at .+, but reglab was built again at .+: run `reglab down`, then `reglab up`, to run the new build\.$/,
    );
    await page.close();
  });

  it('says nothing of it while the build it runs is the one installed', async () => {
    const plane = await start(STARTED_ON);
    const health = await (await fetch(`${plane.url}/health`)).json();
    expect(health).toMatchObject({ status: 'ok', built: STARTED_ON });
    expect(health).not.toHaveProperty('installedBuild');
    const page = await chromium.newPage();
    await openPage(page, `${plane.url}/`, '#notice:not([hidden])', 30_000);
    // once the page has read /health: it marks the notice with the build the control plane runs
    await page.waitForSelector(`#build-notice[data-built="${STARTED_ON}"]`, { state: 'attached', timeout: 30_000 });
    expect(await page.isHidden('#build-notice')).toBe(true);
    await page.close();
  });
});
