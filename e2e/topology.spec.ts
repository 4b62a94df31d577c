import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { jsonLink, watchErrors } from './support';

/** A fixture of the scenario format (src/sim/scenario/fixtures), opened as a shared link. */
const fixtureLink = (name: string) => `/${jsonLink({ s: JSON.parse(readFileSync(new URL(`../src/sim/scenario/fixtures/${name}.json`, import.meta.url), 'utf8')) })}`;

test('a helper on a second connection waits for its own caller\'s row lock: the verdict draws A waiting for itself, the log says why PostgreSQL finds no deadlock, the editor shows the process and the helper', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto(fixtureLink('scenario-v2-helper-lock'));
  const verdict = page.getByRole('region', { name: 'Verdict' });
  await expect(verdict).toContainText('stuck: wait cycle A→A');
  await expect(verdict.getByRole('img', { name: 'Wait cycle A → A' })).toBeVisible();
  // e6: the deadlock_timeout of the helper's wait fires and PostgreSQL's check finds no cycle.
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('Home');
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  await expect(page.locator('.log-row.current')).toContainText('PostgreSQL\'s deadlock check finds no cycle');
  await expect(page.locator('.log-row.current')).toContainText('No 40P01');
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByTestId('pool-state')).toHaveText('process web-1: c1 A, c2 A, c3 idle, c4 idle');
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await expect(page.getByLabel('Process name')).toHaveValue('web-1');
  await expect(page.getByLabel('Runs in process')).toHaveValue('web-1');
  await expect(page.getByLabel('in a helper on a second connection (worker A step 4)')).toBeChecked();
  expect(errors).toEqual([]);
});

test('the pool deadlocks itself: two callers each hold a connection and wait for helpers that wait for one', async ({ page }) => {
  await page.goto(fixtureLink('scenario-v2-helper-pool'));
  const verdict = page.getByRole('region', { name: 'Verdict' });
  await expect(verdict).toContainText('stuck: wait cycle A→B→A');
  await expect(verdict.getByRole('img', { name: 'Wait cycle A → B → A' })).toBeVisible();
  await expect(verdict.getByTestId('wait-for-graph').locator('li.cycle')).toHaveCount(2);
  await page.locator('body').click({ position: { x: 1, y: 1 } });
  await page.keyboard.press('End');
  await expect(page.getByRole('region', { name: 'Inspector' }).getByTestId('pool-state')).toContainText('process web-1: c1 A, c2 B · waiting: A, B');
});
