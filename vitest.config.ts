import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // Integration tests start real btcd, lnd, Postgres and Redis processes; two cores cannot run
    // many of those at once, so files run one after another.
    fileParallelism: false,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
