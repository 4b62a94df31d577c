import { test, expect } from '@playwright/test';

test('the compare view shows both verdicts under the same faults, cursor synchronised', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  const left = page.getByTestId('compare-left');
  const right = page.getByTestId('compare-right');
  await expect(left.getByTestId('verdict')).toContainText('Violated');
  await expect(right.getByTestId('verdict')).toContainText('Held');
  await expect(right).toContainText('Fencing token (checked by the destination): on');
  await expect(left).toContainText('Left: Without the fix');
  await expect(right).toContainText('Right: With the fix');
  await page.keyboard.press('End');
  await expect(left.getByRole('region', { name: 'Inspector' })).toContainText('65 s');
  await expect(right.getByRole('region', { name: 'Inspector' })).toContainText('65 s');

  // Flip one switch instead: release by plain DEL.
  await page.getByLabel('Right-hand side').selectOption('release');
  await expect(right).toContainText('Lease release: plain DEL');
});

test('after a manual switch change, compare names each side by its mechanism and has the transport', async ({ page }) => {
  await page.goto('/#/sim/export-lease-expiry');
  // Turning fencing on makes the setup equal "with the fix".
  await page.getByLabel('Fencing token (checked by the destination)').check();
  await expect(page.getByTestId('verdict')).toContainText('Held');
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  const left = page.getByTestId('compare-left');
  const right = page.getByTestId('compare-right');
  await expect(left).toContainText('Left: With the fix');
  await expect(left).not.toContainText('Without the fix (current)');
  await expect(right).toContainText('Right: Without the fix');
  await expect(left.getByTestId('verdict')).toContainText('Held');
  await expect(right.getByTestId('verdict')).toContainText('Violated');

  // Release by plain DEL too: the left now matches neither variant.
  await page.getByRole('button', { name: 'Simulate', exact: true }).click();
  await page.getByLabel('Lease release').selectOption('del');
  await expect(page.getByTestId('variant-edited')).toBeVisible();
  await expect(page.getByRole('radio', { name: 'without the fix' })).not.toBeChecked();
  await expect(page.getByRole('radio', { name: 'with the fix' })).not.toBeChecked();
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  await expect(left).toContainText('Left: Your edited mechanism');

  // The transport steps both sides.
  const transport = page.getByRole('toolbar', { name: 'Cursor' });
  await transport.getByRole('button', { name: /^Next/ }).click();
  await transport.getByRole('button', { name: /^Next/ }).click();
  await expect(page.getByTestId('cursor-readout')).toContainText('event 2/');
  await expect(left.getByRole('region', { name: 'Inspector' })).toContainText('after e2');
  await transport.getByRole('button', { name: /^Prev/ }).click();
  await expect(page.getByTestId('cursor-readout')).toContainText('event 1/');
});

test('queue-redelivery and skip-locked-claim: Compare names the fix\'s step changes and never calls the runs identical', async ({ page }) => {
  for (const [id, words] of [['queue-redelivery', 'ChangeMessageVisibility'], ['skip-locked-claim', 'drops COMMIT']] as const) {
    await page.goto(`/#/compare/${id}`);
    await expect(page.getByTestId('compare-right')).toBeVisible();
    await expect(page.getByTestId('same-mechanism')).toHaveCount(0);
    await expect(page.getByTestId('compare-diff')).toContainText(words);
    await expect(page.getByTestId('compare-diff')).toContainText('The fix (on the right):');
    await expect(page.getByTestId('divergence')).toContainText('The runs first differ at');
  }
});
