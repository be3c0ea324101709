import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests: Debian's (or any) Chromium with the built extension, the real native host
 * registered into a temporary profile, and real MCP clients. `npm test` builds first.
 */
export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: process.env.CI ? 2 : 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
});
