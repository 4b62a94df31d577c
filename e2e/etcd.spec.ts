import { readFileSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { jsonLink, watchErrors } from './support';

// The example file with the lease in etcd (src/sim/scenario/fixtures/scenario-v2-etcd.json), opened from a link.
const fixture = JSON.parse(readFileSync(new URL('../src/sim/scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8')) as unknown;

test('a lease in etcd: the etcdctl lines in the log, the lane follows etcd\'s key, the inspector shows the store\'s revision, the switches speak etcd', async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/${jsonLink({ s: fixture })}`);
  await expect(page.getByTestId('verdict')).toContainText('Held');
  await expect(page.getByText('A · token 33').first()).toBeVisible();
  await expect(page.getByText('B · token 35').first()).toBeVisible();
  await expect(page.getByLabel('Token from')).toHaveValue('lock-service-revision');
  await expect(page.getByLabel('Lease renewal')).toContainText('keep-alive');
  await expect(page.getByText('etcdctl lease grant 10').first()).toBeAttached();
  await expect(page.getByText('revision 33. Revision 33 is its fencing token').first()).toBeAttached();
  // The cursor just after B took the lock: etcd holds B's key, at the revision after the expiry.
  await page.getByText("B's transaction finds locks/export absent").first().click();
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByRole('heading', { name: 'Lock service (etcd)' })).toBeVisible();
  await expect(inspector.getByTestId('etcd-state')).toContainText('Store revision 35');
  await expect(inspector.getByTestId('etcd-state')).toContainText('locks/export created at revision 35');
  await page.screenshot({ path: 'test-results/etcd-lease.png' });
  expect(errors).toEqual([]);
});
