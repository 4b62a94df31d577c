import { test, expect } from '@playwright/test';

test('back and forward move between meaningful edits, not cursor moves', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  const verdict = page.getByTestId('verdict');
  const faults = page.getByRole('region', { name: 'Faults' });
  await expect(verdict).toContainText('Violated');

  await page.getByLabel('Fencing token (checked by the destination)').check();        // edit 1
  await expect(verdict).toContainText('Held');
  await page.keyboard.press('Home');
  for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');              // cursor: no entries
  await page.getByRole('button', { name: /Remove fault: Pause A/ }).click();          // edit 2
  await expect(faults).toContainText('Faults (0)');
  await page.getByRole('button', { name: 'Compare', exact: true }).click();          // edit 3 (view)
  await expect(page.getByTestId('compare-left')).toBeVisible();

  await page.goBack();
  await expect(page.getByTestId('compare-left')).toHaveCount(0);
  await expect(faults).toContainText('Faults (0)');
  await page.goBack();
  await expect(faults).toContainText('Faults (1)');
  await expect(verdict).toContainText('Held');
  await expect(page.getByTestId('cursor-readout')).toContainText('event 12/');
  await page.goBack();
  await expect(verdict).toContainText('Violated');
  await expect(page.getByLabel('Fencing token (checked by the destination)')).not.toBeChecked();

  await page.goForward();
  await expect(verdict).toContainText('Held');
  await page.goForward();
  await expect(faults).toContainText('Faults (0)');
});

test('typing in one editor field makes one history entry', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const n = await page.evaluate(() => history.length);
  await page.getByLabel('Title').press('End');
  await page.getByLabel('Title').pressSequentially('!!! more words', { delay: 20 });
  await expect(page.getByLabel('Title')).toHaveValue(/more words$/);
  expect(await page.evaluate(() => history.length)).toBe(n + 1);
  await page.goBack();
  await expect(page.getByLabel('Title')).toHaveValue('Nightly export: the lease expires under a paused worker');
});
