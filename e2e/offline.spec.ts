import { test, expect } from '@playwright/test';
import { jsonLink, watchErrors } from './support';

/**
 * Offline after the first visit (issue 13): the production build's service worker (vite-plugin-pwa,
 * Workbox) precaches the app on the first load; with the network gone, a reload and a shared link
 * still open and simulate. The views loaded as their own chunks (src/ui/lazyViews.ts) open offline too.
 */
test('loaded once, then offline: the app reloads and opens a shared link with faults, verdict and all', async ({ browser }) => {
  const ctx = await browser.newContext();
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Start from the invariant' })).toBeVisible();
  // The service worker has installed (precached the build) and controls the page after a reload.
  await page.evaluate(async () => { await navigator.serviceWorker.ready; });
  await page.reload();
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);

  await ctx.setOffline(true);
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Start from the invariant' })).toBeVisible();
  // A shared link: the preset with a fault added, and with its faults taken away.
  await page.goto(`/${jsonLink({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1000, pauseMs: 40_000 }] })}`);
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  expect(await page.locator('.timeline-svg .content *').count()).toBeGreaterThan(10);
  await page.goto(`/${jsonLink({ p: 'export-lease-expiry', x: [] })}`);
  await page.reload();
  await expect(page.getByTestId('verdict')).toContainText('Held');
  // The editor and compare views are chunks of their own: from the cache too.
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await expect(page.getByRole('form', { name: 'Scenario form' })).toBeVisible();
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Compare under the same faults' })).toBeVisible();
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  // The fault search's Web Worker comes from the cache too.
  await page.getByText('Break my design — explore every fault schedule').click();
  await page.getByTestId('explore').getByRole('button', { name: 'Explore' }).click();
  await expect(page.getByTestId('explore-report')).toContainText(/Broken with 1 fault/, { timeout: 30_000 });
  expect(errors).toEqual([]);
  await ctx.close();
});
