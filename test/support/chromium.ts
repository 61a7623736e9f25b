// Debian's Chromium, headless, for the tests of the lab's web pages (faucet, dashboard).
import { chromium, type Browser } from 'playwright-core';

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
