/** Journey: on export-lease-expiry, open "How often? (the odds)", run it with a small R in its Web Worker, see the chart and the heat map. */
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { watchErrors } from './support';

const SHOTS = process.env.ODDS_SHOTS; // a folder: also save screenshots at 1280×800 and 1920×1080 in each theme

async function fill(page: import('@playwright/test').Page, label: string, value: string) {
  await page.getByLabel(label, { exact: true }).fill(value);
}

test('the odds of export-lease-expiry: a line chart with its band and a heat map, computed off the main thread', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByText('How often? (the odds)').click();
  await fill(page, 'Runs per TTL', '20');
  await fill(page, 'Runs per heat-map cell', '4');
  // The small R must be what runs (a default R is 10× the work): the fields hold it before the click.
  await expect(page.getByLabel('Runs per TTL', { exact: true })).toHaveValue('20');
  await expect(page.getByLabel('Runs per heat-map cell', { exact: true })).toHaveValue('4');
  await page.getByRole('button', { name: 'Run the odds' }).click();
  const result = page.getByLabel('The odds');
  // Started: a progress bar, or already the result. If the result never comes, say what the panel shows.
  await expect(page.getByRole('progressbar', { name: 'Runs done' }).or(result)).toBeVisible();
  await expect
    .poll(async () => ((await result.count()) > 0 ? 'result' : (await page.locator('.odds').innerText()).slice(-300)), { timeout: 45_000 })
    .toBe('result');
  await expect(result).toBeVisible();
  const line = page.locator('svg.odds-line-chart');
  await expect(line.locator('circle.odds-point')).toHaveCount(7);
  await expect(line.locator('path.odds-band')).toHaveCount(1);
  // Half the 30 s TTL (15 s) is shorter than the 25 s job: every run breaks. Three times it: none.
  await expect(line).toHaveAttribute('aria-label', /: 15 s 100% .*; 90 s 0% /);
  const heat = page.locator('svg.odds-heat-map');
  await expect(heat.locator('g.odds-cell')).toHaveCount(49);
  await expect(heat.locator('.odds-legend')).toContainText('no violation in 4 runs');
  await expect(result.getByRole('status')).toContainText('no run of 20 violated');
  // Readable in every theme: no serious or critical axe finding in the section (contrast included).
  for (const theme of ['light', 'dark', 'projector']) {
    await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
    const results = await new AxeBuilder({ page }).include('.odds-section').analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${theme} ${v.id}: ${v.help} ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
  }
  if (SHOTS) {
    for (const theme of ['light', 'dark', 'projector']) {
      await page.evaluate((t) => document.documentElement.setAttribute('data-theme', t), theme);
      for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.locator('.odds-section').scrollIntoViewIfNeeded();
        await page.locator('.odds-section').screenshot({ path: `${SHOTS}/odds-${theme}-${w}x${h}.png` });
      }
    }
  }
  expect(errors).toEqual([]);
});

test('the odds run in a Web Worker that can be cancelled, and do not apply without a lease', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByText('How often? (the odds)').click();
  await fill(page, 'Runs per TTL', '5000');
  await page.getByRole('button', { name: 'Run the odds' }).click();
  const bar = page.getByRole('progressbar', { name: 'Runs done' });
  await expect(bar).toBeVisible();
  await expect.poll(async () => Number(await bar.getAttribute('value')), { timeout: 20_000 }).toBeGreaterThan(0);
  // The page stays responsive while the worker runs: the verdict is there and Cancel answers.
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByText('Cancelled.')).toBeVisible();
  await expect(bar).toHaveCount(0);
  await page.goto('/#/sim/invoice-race');
  await page.reload();
  await page.getByText('How often? (the odds)').click();
  await expect(page.getByText(/Does not apply here\. The odds vary the lease TTL/)).toBeVisible();
});
