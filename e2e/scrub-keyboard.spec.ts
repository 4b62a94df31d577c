import { test, expect } from '@playwright/test';

test('scrubbing with the keyboard changes the inspector', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByRole('region', { name: 'Inspector' }).getByText(/Before the first event/)).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('region', { name: 'Inspector' })).toContainText('after e1');
  await expect(page.getByTestId('lease-lease:export')).toContainText('A');
  await expect(page.getByTestId('lease-lease:export')).toContainText('30 s');

  await page.keyboard.press('End');
  await expect(page.getByTestId('worker-A')).toContainText('done');
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('region', { name: 'Inspector' })).toContainText(/after e43/);

  await page.keyboard.press('Home');
  await expect(page.getByRole('region', { name: 'Inspector' }).getByText(/Before the first event/)).toBeVisible();

  // Step to the event where B takes over: A is paused but still believes it owns the lease.
  for (let i = 0; i < 34; i++) await page.keyboard.press('ArrowRight');
  await expect(page.locator('.log-row.current')).toContainText('B takes the lease');
  await expect(page.getByTestId('worker-A')).toContainText('paused');
  await expect(page.getByTestId('worker-A')).toContainText('A believes it owns lease:export');
  await expect(page.getByTestId('lease-lease:export')).toContainText('B');

  // Space plays; space again pauses.
  await page.keyboard.press('Space');
  await expect(page.getByRole('button', { name: 'Pause (space)' })).toBeVisible();
  await page.keyboard.press('Space');
  await expect(page.getByRole('button', { name: 'Play (space)' })).toBeVisible();
});
