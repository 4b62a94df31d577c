import { test, expect, type Page } from '@playwright/test';

/** Top and bottom of an element in the viewport. */
async function box(page: Page, selector: string) {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} not on screen`);
  return { top: b.y, bottom: b.y + b.height };
}

for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
  test(`at ${w}×${h} the verdict, transport, timeline, mechanism and faults are visible together`, async ({ page }) => {
    await page.setViewportSize({ width: w, height: h });
    await page.goto('/#/sim/export-lease-expiry');
    await expect(page.getByTestId('verdict')).toContainText('Violated');
    const check = async () => {
      for (const sel of ['[data-testid="verdict"]', '.transport', '.timeline', 'section.mechanism', '#sw-fencing', 'section.faults h2', '.fault-list li']) {
        const b = await box(page, sel);
        expect(b.top, sel).toBeGreaterThanOrEqual(0);
        expect(b.bottom, sel).toBeLessThanOrEqual(h);
      }
    };
    await check();
    // Ticking a switch keeps the verdict in view.
    await page.getByLabel('Fencing token (checked by the destination)').check();
    await expect(page.getByTestId('verdict')).toContainText('Held');
    await check();
  });
}

test('lane names fit in Large type', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByLabel('Large type').check();
  const label = page.getByRole('button', { name: /^lease:export: add a fault/ });
  await expect(label).toBeVisible();
  const clipped = await label.evaluate((el) => {
    const text = el.firstChild as Text;
    const r = document.createRange();
    r.selectNodeContents(text);
    return r.getBoundingClientRect().right > el.getBoundingClientRect().right - 4;
  });
  expect(clipped).toBe(false);
});

test('the catalogue\'s "Open …" links answer Space as well as Enter', async ({ page }) => {
  await page.goto('/#/');
  const open = page.getByRole('link', { name: 'Open without the fix' }).first();
  await open.focus();
  await page.keyboard.press('Space');
  await expect(page.getByTestId('verdict')).toBeVisible();
  await expect(page.locator('.catalogue')).toHaveCount(0);
});
