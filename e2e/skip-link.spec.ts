import { test, expect } from '@playwright/test';

test('"Skip to content" moves focus to the main content and leaves the route alone', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.waitForFunction(() => location.hash.startsWith('#v=1'));
  const url = page.url();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('main#main')).toBeFocused();
  expect(page.url()).toBe(url);
  // The next Tab lands inside the main content, past the header and the setup column.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => !!document.activeElement?.closest('main#main'))).toBe(true);
  // Still the same scenario after a reload (the address was not replaced by "#main").
  await page.reload();
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.locator('.catalogue')).toHaveCount(0);

  // A mouse click does the same.
  await page.goto('/#/');
  await page.locator('li.preset').first().waitFor();
  await skip.focus();
  await skip.click();
  await expect(page.locator('main#main')).toBeFocused();
  expect(new URL(page.url()).hash).toBe('#/');
});
