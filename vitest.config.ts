import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/support/longest-first-sequencer.js';

// Unit tests (*.unit.test.ts) start nothing and run in seconds: `npm run test:unit`. Integration
// tests start real btcd, lnd, Postgres, Redis, rgb-lib and containers. Files run one at a time
// unless a run asks for more: `npm test` (scripts/run-tests.mjs) runs several at once where they
// cannot meet, beside lanes of files that share one part of the machine (the container engine, the
// test cluster), each lane's one after another. `npm test` runs both projects.
export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    minWorkers: 1,
    sequence: { sequencer: LongestFirstSequencer },
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
