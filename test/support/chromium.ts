// Debian's Chromium, headless, for the tests of the lab's web pages (faucet, dashboard).
import { chromium, type Browser, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });

/** Chromium for the enclosing describe block: launched before its tests, closed after them. */
export function chromiumForSuite(): Pick<Browser, 'newPage'> {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    newPage: (options) => {
      if (!browser) throw new Error('Chromium is not running: its launch in beforeAll failed');
      return browser.newPage(options);
    },
  };
}

const NETWORK_CHANGED = 'net::ERR_NETWORK_CHANGED';

/**
 * Opens `url` and waits for `ready` (a selector). Chromium drops a page's requests when this
 * machine's network changes (a container's interface coming or going, from another test), which
 * leaves a page of ES modules without one of them: such a page is opened again, at most twice.
 */
export async function openPage(page: Page, url: string, ready: string, timeoutMs: number): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    let dropped!: () => void;
    const networkChanged = new Promise<'network changed'>((resolve) => {
      dropped = () => resolve('network changed');
    });
    const onFailed = (request: Request) => {
      if (request.failure()?.errorText === NETWORK_CHANGED) dropped();
    };
    page.on('requestfailed', onFailed);
    try {
      const opened = await page.goto(url).then(
        () => true,
        (error: unknown) => {
          if (String(error).includes(NETWORK_CHANGED)) return false;
          throw error;
        },
      );
      if (!opened) continue;
      const shown = page.locator(ready).waitFor({ timeout: timeoutMs });
      if ((await Promise.race([shown, networkChanged])) !== 'network changed') return;
      shown.catch(() => undefined); // the page is opened again: its wait is not this one's
    } finally {
      page.off('requestfailed', onFailed);
    }
  }
  throw new Error(`${url}: Chromium dropped the page's requests three times (${NETWORK_CHANGED})`);
}
