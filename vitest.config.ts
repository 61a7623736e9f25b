import { defineConfig } from 'vitest/config';

// Unit tests (*.unit.test.ts) start nothing and run in seconds: `npm run test:unit`. Integration
// tests start real btcd, lnd, Postgres, Redis, rgb-lib and containers; two cores cannot run many of
// those at once, so files run one after another. `npm test` runs both.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.unit.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
