import { test, expect } from '@playwright/test';

test('clicking a worker lane injects a pause and the verdict changes', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  // Start from the same situation without the preset's pause: nothing goes wrong.
  await page.getByRole('button', { name: /Remove fault: Pause A/ }).click();
  await expect(page.getByTestId('verdict')).toContainText('Held');

  // Click worker A's lane early in its work (the lane background is the click target).
  const laneA = page.locator('svg.timeline-svg rect.lane-bg').first();
  const box = (await laneA.boundingBox())!;
  await laneA.click({ position: { x: box.width * 0.05, y: box.height / 2 } });
  const menu = page.getByRole('menu', { name: /Inject a fault on worker A/ });
  await expect(menu).toBeVisible();
  await menu.getByRole('menuitem', { name: /Pause A past the lease TTL/ }).click();

  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.getByTestId('change-badge')).toContainText('verdict: held → violated');
  const marker = page.getByRole('button', { name: /^Fault: Pause A for 40 s/ });
  await expect(marker).toHaveCount(1);

  // The marker is keyboard-operable: Delete removes it and the verdict holds again.
  await marker.focus();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('verdict')).toContainText('Held');
});
