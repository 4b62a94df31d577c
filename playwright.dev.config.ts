/**
 * Playwright config for the dev-server smoke test: starts the app exactly as README.md's run
 * command does (`npm run dev`, Vite's dev server with its own Content-Security-Policy) and checks
 * that a newcomer gets the real, styled app. The other journeys run against the production build
 * (`playwright.config.ts`).
 */
import { defineConfig } from '@playwright/test';
import base from './playwright.config';

/** Port of the dev server; E2E_DEV_PORT lets two checkouts run the smoke test at once. */
const port = Number(process.env.E2E_DEV_PORT ?? 5183);

export default defineConfig({
  ...base,
  testDir: 'e2e/dev',
  testIgnore: [],
  use: { ...base.use, baseURL: `http://127.0.0.1:${port}` },
  webServer: {
    command: `npm run dev -- --port ${port} --strictPort --host 127.0.0.1`,
    url: `http://127.0.0.1:${port}`,
    reuseExistingServer: false,
    timeout: 120_000,
  },
});
