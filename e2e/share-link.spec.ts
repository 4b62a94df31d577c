import { test, expect } from '@playwright/test';
import { watchErrors } from './support';

test('a shared link with faults opens the same run: the receiver sees the sender\'s trace hash', async ({ browser }) => {
  const senderCtx = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const sender = await senderCtx.newPage();
  const senderErrors = watchErrors(sender);
  await sender.goto('/#/sim/export-lease-expiry');
  // Add a fault on B's lane and one on the lease, move the cursor.
  await sender.getByRole('button', { name: /^Worker B: add a fault at the cursor/ }).focus();
  await sender.keyboard.press('Enter');
  await sender.keyboard.press('ArrowDown');
  await sender.keyboard.press('Enter');
  await expect(sender.getByTestId('change-badge')).toContainText('Added: Pause B');
  await sender.getByLabel('Lease release').selectOption('del');
  await sender.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await sender.keyboard.press('Home');
  for (let i = 0; i < 7; i++) await sender.keyboard.press('ArrowRight');
  await expect(sender.getByTestId('cursor-readout')).toContainText('event 7/');

  await sender.getByRole('button', { name: 'Copy link' }).first().click();
  const link = await sender.getByTestId('share-link').inputValue();
  expect(link).toMatch(/#v=1&s=/);
  expect(await sender.evaluate(() => navigator.clipboard.readText())).toBe(link);
  const hash = (await sender.getByTestId('trace-hash').textContent())!.trim();
  const readout = await sender.getByTestId('cursor-readout').textContent();
  expect(link.length).toBeLessThan(1_500);
  await expect(sender.getByTestId('link-length')).toContainText(`${link.length} characters`);

  const receiverCtx = await browser.newContext();
  const receiver = await receiverCtx.newPage();
  const receiverErrors = watchErrors(receiver);
  await receiver.goto(link);
  await expect(receiver.getByTestId('trace-hash')).toHaveText(hash);
  await expect(receiver.getByRole('region', { name: 'Faults' })).toContainText('Faults (2)');
  await expect(receiver.getByLabel('Lease release')).toHaveValue('del');
  await expect(receiver.getByTestId('cursor-readout')).toHaveText(readout!);
  expect([...senderErrors, ...receiverErrors]).toEqual([]);
  await senderCtx.close();
  await receiverCtx.close();
});

test('the compare view and its right-hand side travel in the link', async ({ page }) => {
  await page.goto('/#/compare/export-lease-expiry');
  // The old route is rewritten to the v=1 form first; only then take the address to compare against.
  await expect.poll(() => page.url()).toContain('#v=1&');
  await expect(page.getByTestId('compare-right')).toBeVisible();
  const before = page.url();
  await page.getByLabel('Right-hand side').selectOption('release');
  await expect(page.getByTestId('compare-right')).toContainText('Lease release: plain DEL');
  // The address follows right after the frame that shows the edit.
  await expect.poll(() => page.url()).not.toBe(before);
  // Let any write still queued for the frame land before taking the link.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
  const url = page.url();
  const other = await page.context().newPage();
  await other.goto(url);
  await expect(other.getByLabel('Right-hand side')).toHaveValue('release');
  await expect(other.getByTestId('compare-right')).toContainText('Lease release: plain DEL');
});
