/** Journey: a reader learning alone opens Help from any view, and reads what a reply means from the log, by mouse or keyboard. */
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

for (const [name, path] of [['catalogue', '/'], ['simulator', '/#/sim/export-lease-expiry'], ['compare', '/#/compare/export-lease-expiry']] as const) {
  test(`Help and "How faithful is the model?" open from the ${name}`, async ({ page }) => {
    await page.goto(path);
    await page.getByRole('button', { name: 'Help', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Help' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('heading', { name: 'How faithful is the model?' })).toBeVisible();
    await expect(dialog).toContainText('55P03');
    const bad = (await new AxeBuilder({ page }).include('.help-dialog').analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => v.id)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
  });
}

test('Help opens from the editor too', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByRole('button', { name: 'Help', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Help' })).toBeVisible();
});

test('a reply explains itself on hover and on keyboard focus of its row', async ({ page }) => {
  await page.goto('/#/sim/invoice-race');
  await expect(page.getByTestId('verdict')).toBeVisible();
  // Hover: the reply of the first INSERT.
  const insert = page.locator('.log-row', { hasText: 'INSERT 0 1' }).first();
  await insert.locator('.log-reply').hover();
  await expect(insert.getByRole('tooltip')).toBeVisible();
  await expect(insert.getByRole('tooltip')).toContainText('1 row inserted');
  // Keyboard: step through the log with the arrow keys; the focused row shows its reply's meaning.
  await page.locator('[data-event-id="e1"]').click();
  await page.mouse.move(0, 0);
  await page.keyboard.press('ArrowDown');
  const row = page.locator('.log-row.current');
  await expect(row.locator('button').first()).toBeFocused();
  await expect(row.getByRole('tooltip')).toBeVisible();
  const err = page.locator('.log-row', { hasText: 'SELECT 0' });
  await expect(err.first().locator('button').first()).toHaveAttribute('aria-describedby', /.+/);
});

test('the retries fold on the log and on the lane, and expand', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const fold = page.locator('.fold-row').first();
  await expect(fold).toContainText(/× \d+, 1 s apart/);
  await expect(fold).toContainText("SET lease:export a5e3 NX PX 30000");
  await expect(page.locator('.timeline-svg [data-lane="worker-B"] [aria-label*="29 refused attempts, 1 s apart"]')).toHaveCount(1);
  await fold.getByRole('button', { name: /^Show all/ }).click();
  await expect(page.locator('.log-row.nested').first()).toBeVisible();
});
