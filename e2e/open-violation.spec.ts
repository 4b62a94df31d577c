import { test, expect } from '@playwright/test';

test('open export-lease-expiry from the catalogue: the violation is shown', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Start from the invariant' })).toBeVisible();
  const card = page.locator('li.preset', { has: page.getByRole('heading', { name: /Nightly export/ }) });
  await expect(card).toContainText('Violated');
  await card.getByRole('link', { name: 'Open without the fix' }).click();
  await expect(page).toHaveURL(/#v=1&s=/);
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText(/writes to exports\/2026-11-30\.csv overlapped/);
  // The duplicate upload is marked on the timeline with words, not colour alone.
  await expect(page.getByRole('listitem', { name: /Write #2 by A: DUPLICATE/ })).toHaveCount(1);
  // The violation mark moves the cursor to the event that broke the invariant.
  await page.getByRole('button', { name: /^Violation: .*overlapped/ }).click();
  await expect(page.locator('.log-row.current')).toContainText('A\'s upload completes');
});
