// Debian's Chromium, headless, for the tests of the lab's web pages (faucet, dashboard).
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });

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
