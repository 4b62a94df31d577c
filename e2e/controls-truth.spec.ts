import { test, expect } from '@playwright/test';

const shots = process.env.UITRUTH_SHOTS;

test('a switch that cannot change the run is disabled and says why', async ({ page }) => {
  await page.goto('/#/sim/remote-call-in-txn/fixed');
  const jobRecord = page.getByLabel('Check the durable job record first');
  await expect(jobRecord).toBeDisabled();
  const panel = page.getByRole('region', { name: 'Mechanism' });
  await panel.getByText(/more switch(es)?: no effect in this run/).click();
  await expect(panel.getByText('No effect here: the job already writes its record', { exact: false })).toBeVisible();
  if (shots) await panel.screenshot({ path: `${shots}/mechanism-remote-fixed.png` });

  // Where a switch can change the run, it is enabled (renew-partition: stop on renewal failure).
  await page.goto('/#/sim/renew-partition');
  await expect(page.getByLabel('Stop when a renewal fails')).toBeEnabled();
});

test('the fault menu offers no lease fault without a lease, and says why an entry would change nothing', async ({ page }) => {
  await page.goto('/#/sim/invoice-race');
  const laneA = page.locator('svg.timeline-svg rect.lane-bg').first();
  await expect(laneA).toBeVisible();
  // The lane's rect is redrawn while the page settles (d3 replaces it): read its box once it stays.
  await expect.poll(() => laneA.boundingBox()).not.toBeNull();
  const box = (await laneA.boundingBox())!;
  await laneA.click({ position: { x: box.width * 0.02, y: box.height / 2 } });
  const menu = page.getByRole('menu', { name: /Inject a fault on worker A/ });
  await expect(menu).toBeVisible();
  await expect(menu).not.toContainText('lease');
  if (shots) await page.screenshot({ path: `${shots}/fault-menu-invoice-race.png` });
  await page.keyboard.press('Escape');

  // After the run, worker A has finished: pausing it would change nothing, and the entry says so.
  await page.keyboard.press('End');
  await laneA.click({ position: { x: box.width * 0.98, y: box.height / 2 } });
  const late = page.getByRole('menu', { name: /Inject a fault on worker A/ });
  // A pause that fits the run (invoice-race runs 1 s: a 200 ms pause, menuPauseMs).
  const pause = late.getByRole('menuitem', { name: /^Pause A for 200 ms/ });
  await expect(pause).toHaveAttribute('aria-disabled', 'true');
  await expect(pause).toContainText('No effect here');
  if (shots) await page.screenshot({ path: `${shots}/fault-menu-late.png` });
  await pause.click({ force: true });
  await expect(page.getByRole('region', { name: 'Faults' })).toContainText('No faults');
});

test('End goes to the last event and a copied link reopens at the same instant', async ({ page, context }) => {
  await page.goto('/#/sim/export-lease-expiry/fixed');
  const toolbar = page.getByRole('toolbar', { name: 'Cursor' });
  await expect(toolbar).toContainText('before the first event');
  await page.getByRole('button', { name: 'Go to the end (End)' }).click();
  // The last event is the upload's end at 55 s, not the lease's expiry at 60 s.
  await expect(toolbar).toContainText(/55 s · event (\d+)\/\1\b/);
  await expect.poll(() => page.url()).toContain('#v=1&');
  await page.waitForTimeout(600);
  const other = await context.newPage();
  await other.goto(page.url());
  await expect(other.getByRole('toolbar', { name: 'Cursor' })).toContainText(/55 s · event (\d+)\/\1\b/);

  // A cursor dragged past the last event (the TTL runs out at 60 s) reopens there too, not at 55 s.
  await page.keyboard.press('Home');
  await page.getByRole('button', { name: 'Play (space)' }).click();
  await expect(toolbar).toContainText(/60 s · event/, { timeout: 30_000 });
  await page.waitForTimeout(600);
  const third = await context.newPage();
  await third.goto(page.url());
  await expect(third.getByRole('toolbar', { name: 'Cursor' })).toContainText(/60 s · event/);
  if (shots) await page.screenshot({ path: `${shots}/end-export-fixed.png` });
});

test('compare at 0 ms: both sides before the first event; metrics say what they count', async ({ page }) => {
  await page.goto('/#/compare/invoice-race');
  for (const side of ['left', 'right']) await expect(page.getByTestId(`compare-${side}`)).toContainText('Before the first event');
  if (shots) await page.screenshot({ path: `${shots}/compare-0.png` });

  await page.goto('/#/sim/export-lease-expiry');
  const metrics = page.getByRole('region', { name: 'Metrics' });
  await expect(metrics.getByTestId('metrics-scope')).toContainText('up to the cursor (0 s)');
  await expect(metrics.getByRole('img', { name: /Counts: .*0 duplicates/ })).toBeVisible();
  await metrics.getByRole('radio', { name: 'whole run' }).check();
  await expect(metrics.getByTestId('metrics-scope')).toContainText('whole run');
  await expect(metrics.getByRole('img', { name: /Counts: .*1 duplicate/ })).toBeVisible();
  if (shots) await metrics.screenshot({ path: `${shots}/metrics.png` });
});

test('unsafe-release shows what it has: no file store; the lease ramp stops at each DEL', async ({ page }) => {
  await page.goto('/#/sim/unsafe-release');
  await page.getByRole('button', { name: 'Go to the end (End)' }).click();
  const world = page.getByRole('region', { name: 'Inspector' });
  await expect(world).toContainText('Workers');
  await expect(world).not.toContainText('exports/2026-11-30.csv');
  await expect(world.getByRole('heading', { name: /Destination/ })).toHaveCount(0);
  await expect(page.locator('svg.timeline-svg')).not.toContainText('File store');
  if (shots) await page.locator('.timeline-wrap, svg.timeline-svg').first().screenshot({ path: `${shots}/unsafe-release-timeline.png` });
  if (shots) await page.screenshot({ path: `${shots}/unsafe-release.png`, fullPage: true });
});
