import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

const VIEWS = [['catalogue', '/'], ['simulator', '/#/sim/export-lease-expiry'], ['SQL simulator', '/#/sim/invoice-race'], ['compare', '/#/compare/export-lease-expiry']] as const;
for (const theme of ['light', 'dark', 'projector'] as const) for (const [name, path] of VIEWS) {
  test(`axe: no serious or critical violations on the ${name}, ${theme} theme`, async ({ page }) => {
    await page.addInitScript((t) => localStorage.setItem('lockscope:prefs:v1', JSON.stringify({ theme: t, largeType: false })), theme);
    await page.goto(path);
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
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

test('axe: no serious or critical violations in the scenario editor, valid and with errors', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await expect(page.getByRole('form', { name: 'Scenario form' })).toBeVisible();
  const serious = async () => (await new AxeBuilder({ page }).analyze()).violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
  expect(await serious()).toEqual([]);
  await page.getByLabel('Horizon (ms)').fill('-1');
  await expect(page.getByTestId('editor-errors')).toBeVisible();
  expect(await serious()).toEqual([]);
});

test('axe: no serious or critical violations with a refused-link message on screen', async ({ page }) => {
  await page.goto('/#v=1&s=garbage');
  await expect(page.getByTestId('notice')).toBeVisible();
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});

test('axe: no serious or critical violations in Break my design, with a counterexample and the matrix, light and dark', async ({ page }) => {
  for (const theme of ['light', 'dark'] as const) {
    await page.addInitScript((t) => localStorage.setItem('lockscope:prefs:v1', JSON.stringify({ theme: t, largeType: false })), theme);
    await page.goto('about:blank');
    await page.goto('/#/sim/export-lease-expiry');
    await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
    await page.getByText('Break my design — explore every fault schedule').click();
    const panel = page.getByTestId('explore');
    await panel.getByLabel('Faults per schedule').selectOption('1');
    await panel.getByRole('button', { name: 'Explore' }).click();
    await expect(panel.getByTestId('explore-report')).toContainText('Broken with');
    await panel.getByRole('button', { name: 'Compute the matrix' }).click();
    await expect(panel.getByRole('button', { name: 'Compute again' })).toBeVisible({ timeout: 60_000 });
    const results = await new AxeBuilder({ page }).include('[data-testid="explore"]').analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${theme} ${v.id}: ${v.help} (${v.nodes.length}) ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
  }
});
