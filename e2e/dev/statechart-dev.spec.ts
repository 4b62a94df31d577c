import { test, expect } from '@playwright/test';
import { watchErrors } from '../support';

/** Under the dev server (its CSP, ELK's worker served from node_modules), the statechart lays out too. */
test('under the dev server, the statechart panel lays the worker machine out in ELK\'s worker', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByText('The worker’s statechart').click();
  await expect(page.getByTestId('statechart-svg').locator('.sc-state.current')).toHaveAttribute('data-state', 'active.idle', { timeout: 30_000 });
  expect(errors).toEqual([]);
});
