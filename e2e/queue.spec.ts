import { test, expect } from '@playwright/test';

test('the catalogue lists the queue presets with their lessons; queue-redelivery shows the message\'s lane and both deliveries', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/');
  await expect(page.getByText('A slow job is delivered twice').first()).toBeVisible();
  await expect(page.getByText('Two workers start one job row').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/queue-catalogue.png', fullPage: true });
  await page.goto('/#/sim/queue-redelivery');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText('performed 2 times');
  await expect(page.locator('[aria-label^="Queue charges, message m1"]').first()).toBeAttached();
  await expect(page.getByText('charges: m1').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/queue-redelivery.png' });
  await page.goto('/#/sim/skip-locked-claim');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText('claimed 2 times');
  await page.screenshot({ path: 'test-results/skip-locked-claim.png' });
});
