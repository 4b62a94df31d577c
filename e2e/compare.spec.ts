import { test, expect } from '@playwright/test';

test('the compare view shows both verdicts under the same faults, cursor synchronised', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  const left = page.getByTestId('compare-left');
  const right = page.getByTestId('compare-right');
  await expect(left.getByTestId('verdict')).toContainText('Violated');
  await expect(right.getByTestId('verdict')).toContainText('Held');
  await expect(right).toContainText('Fencing token (checked by the destination): on');
  await page.keyboard.press('End');
  await expect(left.getByRole('region', { name: 'Inspector' })).toContainText('65 s');
  await expect(right.getByRole('region', { name: 'Inspector' })).toContainText('65 s');

  // Flip one switch instead: release by plain DEL.
  await page.getByLabel('Right-hand side').selectOption('release');
  await expect(right).toContainText('Lease release: plain DEL');
});
