import { test, expect } from '@playwright/test';
import { watchErrors } from '../support';

/**
 * README.md's run command is `npm ci && npm run dev`. Under the dev server's CSP, Vite's injected
 * `<style>` elements were once blocked: the page came up in Times with a raw layout and a console
 * error on every load, and nothing caught it because the other journeys use `vite preview`.
 */
test('the app served by `npm run dev` is styled, draws the timeline and logs no error', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Start from the invariant' })).toBeVisible();
  // styles.css applied: the body font is the app's, not the browser default.
  const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
  expect(font).toContain('system-ui');
  const card = page.locator('li.preset', { has: page.getByRole('heading', { name: /Nightly export/ }) });
  await card.getByRole('link', { name: 'Open without the fix' }).click();
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  // The d3 timeline drew its lanes and the duplicate mark.
  await expect(page.getByRole('listitem', { name: /Write #2 by A: DUPLICATE/ })).toHaveCount(1);
  expect(await page.locator('.lane-label').count()).toBeGreaterThan(2);
  expect(await page.locator('.timeline-svg .content *').count()).toBeGreaterThan(10);
  expect(errors).toEqual([]);
});

test('under the dev server, Break my design runs its Web Workers (the dev CSP allows them) and finds the counterexample', async ({ page }) => {
  const errors = watchErrors(page);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByText('Break my design — explore every fault schedule').click();
  const panel = page.getByTestId('explore');
  await panel.getByRole('button', { name: 'Explore' }).click();
  await expect(panel.getByTestId('explore-report')).toContainText(/Broken with 1 fault/, { timeout: 30_000 });
  expect(workers.some((u) => /search\.worker/.test(u))).toBe(true);
  expect(errors).toEqual([]);
});
