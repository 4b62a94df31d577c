import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

for (const [name, path] of [['catalogue', '/'], ['simulator', '/#/sim/export-lease-expiry'], ['compare', '/#/compare/export-lease-expiry']] as const) {
  test(`axe: no serious or critical violations on the ${name}`, async ({ page }) => {
    await page.goto(path);
    await page.waitForSelector(name === 'catalogue' ? 'li.preset' : '[data-testid="verdict"]');
    if (name !== 'catalogue') {
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
    }
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
  });
}

test('the fault menu is keyboard-operable and has no serious violations', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: /^Worker B: add a fault at the cursor/ }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('menuitem').first()).toBeFocused();
  const results = await new AxeBuilder({ page }).include('.fault-menu').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('change-badge')).toContainText('Added: Pause B');
});
