/** Journey: a presenter turns on large type and a theme; both stay on reload, and a shared link keeps large type. */
import { test, expect, type Page } from '@playwright/test';

/** Font size (px, on screen) of the first worker segment's words in the timeline. */
async function timelineTextPx(page: Page): Promise<number> {
  return page.locator('.timeline-svg .lane text').first().evaluate((t) => (t as SVGTextElement).getBoundingClientRect().height);
}

test('large type scales the timeline and persists on this device and in the link', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const before = await timelineTextPx(page);
  const labelBefore = await page.locator('.lane-label').first().boundingBox();
  await page.locator('.display-prefs > summary').click();
  await page.getByLabel('Large type').check();
  await expect(page.locator('html')).toHaveClass(/large-type/);
  await expect.poll(() => timelineTextPx(page)).toBeGreaterThan(before * 1.15);
  const labelAfter = await page.locator('.lane-label').first().boundingBox();
  expect(labelAfter!.height).toBeGreaterThan(labelBefore!.height * 1.15);
  await expect.poll(() => page.evaluate(() => location.hash)).not.toBe('');
  const link = await page.evaluate(() => location.href);

  await page.reload();
  await expect(page.locator('html')).toHaveClass(/large-type/);

  // A fresh device opening the link gets large type from it.
  const other = await page.context().browser()!.newContext({ viewport: { width: 1280, height: 800 } });
  const p2 = await other.newPage();
  await p2.goto(link);
  await expect(p2.locator('html')).toHaveClass(/large-type/);
  await other.close();
});

test('the theme follows the system until chosen, and the choice persists', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/#/sim/invoice-race');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.locator('.display-prefs > summary').click();
  await page.getByLabel('Theme').selectOption('projector');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'projector');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'projector');
  const bg = await page.evaluate(() => getComputedStyle(document.body.parentElement!).backgroundColor);
  expect(bg).toBe('rgb(255, 255, 255)');
});

test('a SQL race fills the plot: its last event sits near the right edge, ticks in ms', async ({ page }) => {
  await page.goto('/#/sim/invoice-race');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const ticks = await page.locator('.timeline-svg .axis .tick text').allTextContents();
  expect(ticks.every((t) => / ms$/.test(t))).toBe(true);
  expect(ticks.at(-1)).toMatch(/^1[2-5]0 ms$/);
  // The database lane's marks of the two INSERTs (both cited by the violation, so drawn as its
  // marks) are apart, not merged into one blob.
  // Polled: the first frame may draw before the plot's width is measured (every mark at x = 0).
  const rowXs = () => page.locator('.timeline-svg [data-lane="database"] title').evaluateAll((els) => els.filter((e) => /^(Cited by a violation|Row)/.test(e.textContent ?? '')).map((e) => e.parentElement!.getBoundingClientRect().x).sort((a, b) => a - b));
  await expect.poll(async () => (await rowXs()).length).toBeGreaterThanOrEqual(2);
  await expect.poll(async () => { const rows = await rowXs(); return Math.abs(rows[1]! - rows[0]!); }).toBeGreaterThan(40);
});

test('zoomed in, bars stay inside the plot', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Zoom in around the cursor' }).click();
  const clip = await page.locator('.timeline-svg g.content').getAttribute('clip-path');
  expect(clip).toMatch(/^url\(#.+-plot\)$/);
  // The clip is the plot: as wide as the drawing (the viewBox), starting at its left edge.
  const [vbW, clipX, clipW] = await page.locator('.timeline-svg').evaluate((svg) => {
    const id = svg.querySelector('g.content')!.getAttribute('clip-path')!.slice(5, -1);
    const r = svg.querySelector(`clipPath[id="${id}"] rect`)!;
    return [(svg as SVGSVGElement).viewBox.baseVal.width, Number(r.getAttribute('x')), Number(r.getAttribute('width'))];
  });
  expect(clipX).toBe(0);
  expect(clipW).toBeCloseTo(vbW, 1);
  // Zoomed 16×, some bars extend past the plot on both sides: the clip is what keeps them in.
  const xs = await page.locator('.timeline-svg g.content rect').evaluateAll((rs) => rs.map((r) => [Number(r.getAttribute('x')), Number(r.getAttribute('width'))] as const));
  expect(xs.some(([x, w]) => x < 0 || x + w > vbW)).toBe(true);
});
