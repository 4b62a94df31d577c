import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

test('predict-then-reveal hides the verdict, badges, marks and the future until the last event', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  const verdict = page.getByTestId('verdict');
  await expect(verdict).toContainText('Violated');
  await expect(page.locator('.violation-mark')).toHaveCount(1);

  // Keyboard: focus the toggle and press Space.
  const toggle = page.getByLabel('Hide the verdict until the end');
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toBeChecked();
  await expect(verdict).toContainText('Verdict hidden');
  await expect(verdict).not.toContainText('Violated');
  await expect(page.locator('.violation-mark')).toHaveCount(0);
  await expect(page.getByTestId('curtain')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Event log' })).toContainText('44 more events hidden');
  await expect(page.getByRole('region', { name: 'Metrics' })).toContainText('Hidden with the verdict');
  const axe = await new AxeBuilder({ page }).analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);

  // An edit says what was done, not what it changed.
  await page.getByLabel('Fencing token (checked by the destination)').check();
  await expect(page.getByTestId('change-badge')).toContainText('outcome hidden until the end');
  await expect(page.getByTestId('change-badge')).not.toContainText('held');

  // The link keeps the mode: a reload opens it hidden again.
  await page.waitForFunction(() => location.hash.startsWith('#v=1'));
  await page.waitForTimeout(300);
  await page.reload();
  await expect(page.getByTestId('verdict')).toContainText('Verdict hidden');
  await expect(page.getByLabel('Hide the verdict until the end')).toBeChecked();

  // Stepping to the last event reveals it.
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('End');
  await expect(page.getByTestId('verdict')).toContainText('Held');
  await expect(page.getByTestId('curtain')).toHaveCount(0);
  // Going back does not hide it again.
  await page.keyboard.press('Home');
  await expect(page.getByTestId('verdict')).toContainText('Held');

  // "Reveal now" on a fresh load.
  await page.goto('/#/sim/unsafe-release');
  await page.getByLabel('Hide the verdict until the end').check();
  await page.getByTestId('reveal').click();
  await expect(page.getByTestId('verdict')).toContainText('Violated');
});
