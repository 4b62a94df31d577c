import { test, expect } from '@playwright/test';
import { watchErrors } from '../support';

/**
 * Under the dev server React runs in StrictMode, which runs every effect, cleans it up and runs
 * it again: the audience window once opened its BroadcastChannel in render, the first cleanup
 * closed it, and the window stayed blank ("Channel is closed"). The preview journeys (the
 * production build, no StrictMode double run) could not see it.
 */
test('under the dev server, the presenter opens the audience window and it follows the presenter', async ({ page, context }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/watchdog-starved');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByTestId('present').click();
  const [audience] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-audience').click()]);
  const audErrors = watchErrors(audience);
  await expect(audience.getByTestId('audience')).toBeVisible();
  // The presenter's scenario has arrived: until the reveal the audience reads its neutral title (the catalogue's tells the outcome).
  await expect(audience.getByRole('heading', { level: 1 })).toHaveText('2 workers writing ledger/2026-11.csv');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const cursorOf = (p: typeof page) => p.locator('.cursor-grip').first().getAttribute('aria-valuenow');
  await expect.poll(() => cursorOf(audience)).toBe(await cursorOf(page));
  expect(errors).toEqual([]);
  expect(audErrors).toEqual([]);
});
