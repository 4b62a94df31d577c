import { test, expect } from '@playwright/test';
import { jsonLink, watchErrors } from './support';

test('Break my design: explore a preset without the fix → counterexample → open it (verdict marked) → replay against the fix', async ({ page }) => {
  const errors = watchErrors(page);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(`/${jsonLink({ p: 'unsafe-release' })}`);
  await expect(page.getByTestId('verdict')).toBeVisible();
  await page.getByText('Break my design — explore every fault schedule').click();
  const panel = page.getByTestId('explore');
  await expect(panel.getByLabel('Faults per schedule')).toHaveValue('2');
  await panel.getByRole('button', { name: 'Explore' }).click();
  const report = panel.getByTestId('explore-report');
  await expect(report).toContainText(/Broken with [12] faults?:/, { timeout: 30_000 });
  await expect(report).toContainText(/schedules? tried, \d+ distinct traces?/);
  // It ran in Web Workers (same-origin module files, allowed by the production CSP's worker-src 'self').
  // (The page's other worker computes the switch statuses: src/ui/mechanism/switchStatus.worker.ts.)
  expect(workers.filter((u) => /search\.worker/.test(u)).length).toBeGreaterThanOrEqual(1);
  expect(workers.every((u) => /(search|switchStatus)\.worker/.test(u) && new URL(u).origin === new URL(page.url()).origin)).toBe(true);
  await panel.getByRole('button', { name: 'Open in the simulator' }).click();
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  // The verdict's events are marked on the timeline, and the cursor is on the first one.
  await expect(page.getByRole('button', { name: /^Violation: / }).first()).toBeVisible();
  await expect(page.locator('.log-row.current')).toHaveCount(1);
  await expect(page.getByRole('status').filter({ hasText: /Counterexample: / }).first()).toBeVisible();
  await panel.getByRole('button', { name: 'Replay against another mechanism' }).click();
  await expect(page.getByRole('heading', { name: 'Compare under the same faults' })).toBeVisible();
  await expect(page.getByTestId('compare-right')).toContainText('Right: With the fix');
  await expect(page.getByTestId('divergence')).toHaveClass(/at-cursor/);
  await expect(page.getByTestId('divergence')).toContainText(/The runs first differ at/);
  expect(errors).toEqual([]);
});

test('Break my design: a long search shows schedules/s and the time left, the page stays usable, and Cancel stops it', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(`/${jsonLink({ p: 'export-lease-expiry', f: 1 })}`);
  await expect(page.getByTestId('verdict')).toBeVisible();
  await page.getByText('Break my design — explore every fault schedule').click();
  const panel = page.getByTestId('explore');
  await panel.getByLabel('Faults per schedule').selectOption('3');
  await panel.getByRole('button', { name: 'Explore' }).click();
  const progress = panel.getByTestId('explore-progress');
  await expect(progress).toContainText(/[\d,]+ schedules\/s · about [\d.]+ (s|ms) left/, { timeout: 20_000 });
  // The page is not blocked: a control elsewhere answers while the workers run.
  const more = page.getByRole('button', { name: 'More…' });
  await more.click();
  await expect(page.getByRole('button', { name: 'Less' })).toBeVisible({ timeout: 2_000 });
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByTestId('explore-report')).toContainText(/Cancelled: no violation in the [\d,]+ schedules tried so far/);
  await expect(panel.getByRole('button', { name: 'Explore' })).toBeEnabled();
  expect(errors).toEqual([]);
});
