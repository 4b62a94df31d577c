import { test, expect } from '@playwright/test';
import { watchErrors } from './support';

/** A run cut short proves nothing: the app's verdict panel says "Inconclusive — cut short at N events / T s", not "Held". */
test('a scenario that reaches the event limit before its violation is shown as inconclusive', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/unsafe-release');
  await page.getByTestId('import-file').setInputFiles('src/sim/cases/event-limit-truncation.json');
  const verdict = page.getByTestId('verdict');
  await expect(verdict).toContainText(/Inconclusive — cut short at 20000 events \/ \d+(\.\d+)? s/, { timeout: 30_000 });
  await expect(verdict).not.toContainText('Held');
  await expect(page.getByTestId('cut-short')).toContainText('reached the event limit (20000 events)');
  await expect(page.getByTestId('cut-short')).toContainText('Nothing was violated before then, which proves nothing.');
  expect(errors).toEqual([]);
});
