import { test, expect } from '@playwright/test';
import { watchErrors } from './support';

test('edit in the form → the address updates → reload → the same state', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/export-lease-expiry');
  const before = page.url();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByLabel('Title').fill('My export design');
  await page.getByLabel('Seed').fill('1234');
  await page.getByLabel('Worker A step 2 duration (ms)').fill('2500');
  await page.getByLabel('TTL (ms)').fill('45000');
  await expect(page.getByTestId('editor-status')).toContainText('Valid');
  await expect(page).not.toHaveURL(before);
  await expect(page).toHaveURL(/#v=1&s=/);
  // "About this run" follows an edit right after the frame that shows it.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
  const hash = await page.getByTestId('trace-hash').textContent();

  // An invalid edit shows where, and does not reach the address bar.
  await page.getByLabel('Horizon (ms)').fill('-1');
  await expect(page.getByTestId('editor-errors')).toContainText('horizonMs');
  await expect(page.getByLabel('Horizon (ms)')).toHaveAttribute('aria-invalid', 'true');
  const url = page.url();
  await page.getByLabel('Horizon (ms)').fill('90000');
  await expect(page.getByTestId('editor-status')).toContainText('Valid');
  await page.waitForTimeout(300);

  await page.reload();
  await expect(page.getByLabel('Title')).toHaveValue('My export design');
  await expect(page.getByLabel('Seed')).toHaveValue('1234');
  await expect(page.getByLabel('Worker A step 2 duration (ms)')).toHaveValue('2500');
  await expect(page.getByLabel('TTL (ms)')).toHaveValue('45000');
  await expect(page.getByTestId('trace-hash')).toHaveText(hash!);
  expect(page.url()).toBe(url);
  await expect(page.getByTestId('draft-offer')).toHaveCount(0);
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('My export design');
  expect(errors).toEqual([]);
});

test('opening another link keeps unsaved edits: the app offers to restore them', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  // The switch statuses arrive in idle time after the first paint and fold the inert switches
  // away, moving the Faults panel up ~80 px: a click whose press and release straddle that lands
  // on nothing. Wait until the Mechanism panel has settled.
  await expect(page.getByRole('region', { name: 'Mechanism' })).toHaveAttribute('aria-busy', 'false');
  await page.getByRole('button', { name: /Remove fault: Pause A/ }).click();
  await expect(page.getByTestId('verdict')).toContainText('Held');
  await page.waitForTimeout(600);
  await page.goto('about:blank');
  await page.goto('/#/sim/invoice-race');
  const offer = page.getByTestId('draft-offer');
  await expect(offer).toContainText('Nightly export');
  await offer.getByRole('button', { name: 'Restore my edits' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Nightly export');
  await expect(page.getByRole('region', { name: 'Faults' })).toContainText('Faults (0)');
  await expect(page.getByTestId('verdict')).toContainText('Held');
  // Back returns to the link that was opened.
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toContainText(/invoice/i);
});
