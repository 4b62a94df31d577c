/** Playwright e2e config: headless Debian Chromium (never downloaded), against the production build served by vite preview. */
import { defineConfig } from '@playwright/test';

/** Port of the preview server; E2E_PORT lets two checkouts run their specs at once. */
const port = Number(process.env.E2E_PORT ?? 4173);

export default defineConfig({
  testDir: 'e2e',
  // e2e/dev/ runs against the dev server: playwright.dev.config.ts.
  testIgnore: ['dev/**'],
  // A hang guard, not a speed goal: under load a 20,000-event run took over 30 s to open and scrub.
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  // One retry on CI (Playwright's own template uses two); a retried test is still reported as flaky.
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
  },
  webServer: {
    command: `npx vite build && npx vite preview --port ${port} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}`,
    // Never test a server someone else left on the port: it may serve another build.
    reuseExistingServer: false,
    timeout: 120_000,
  },
});
