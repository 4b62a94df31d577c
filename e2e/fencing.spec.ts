import { test, expect } from '@playwright/test';

test('turning fencing on makes the verdict hold and shows the stale upload rejected', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByLabel('Fencing token (checked by the destination)').check();
  await expect(page.getByTestId('verdict')).toContainText('Held');
  await expect(page.getByTestId('change-badge')).toContainText('verdict: violated → held');
  await expect(page.getByTestId('change-badge')).toContainText('stale write rejected');
  await expect(page.getByRole('listitem', { name: 'Write #2 by A with token 33: rejected: stale token' })).toHaveCount(1);
  await page.keyboard.press('End');
  await expect(page.getByTestId('write-2')).toContainText('rejected (stale)');
  await expect(page.getByTestId('write-2')).toContainText('409 Conflict: stale fencing token 33');
});
