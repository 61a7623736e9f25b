import { defineConfig } from 'vitest/config';

/** The run interrupt.test.ts starts and interrupts: one fixture, the suite's global set-up. */
export default defineConfig({
  test: {
    include: ['test/cleanup/holds-a-lab.fixture.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
