/**
 * Issue 9, a newcomer's review: a refused link's message said "must be < lease.renewEveryMs
 * (3000)", the editor's hints "≤ 3600000" and "empty = 1000" — durations without their unit.
 * Every duration the app shows carries ms or s: a sweep over the page text of every preset (both
 * variants; Simulate with every disclosure open at the last event, Compare, Edit) and over the
 * messages of refused links finds no bare number where a duration is meant (./bareNumbers.ts).
 */
import { test, expect } from '@playwright/test';
import { PRESETS, findPreset } from '../src/sim';
import { bareNumbers } from './bareNumbers';
import { jsonLink } from './support';

test('the check finds a duration without its unit (it can fail)', async ({ page }) => {
  await page.goto('/#/sim/pexpire-renewal');
  await expect(page.getByTestId('verdict')).toBeVisible();
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'must be less than Renew every (3000); empty = 1000';
    document.querySelector('main')!.append(p);
  });
  const found = await bareNumbers(page);
  // Both: the number in parentheses and the one after "empty =".
  expect(found).toHaveLength(2);
  for (const f of found) expect(f).toMatch(/Renew every \(3000\); empty = 1000…$/);
});

for (const p of PRESETS) {
  test(`every duration shown has its unit: ${p.id}`, async ({ page }) => {
    test.setTimeout(90_000);
    for (const variant of ['', '/fixed']) {
      const at = `${p.id}${variant}`;
      await page.goto(`/#/sim/${at}`);
      await expect(page.getByTestId('verdict')).toBeVisible();
      await expect(page.locator('section.mechanism')).toHaveAttribute('aria-busy', 'false');
      await page.keyboard.press('End');
      // Every disclosure open (one opened may hold more: open until none is closed, its content loaded).
      for (let i = 0; i < 5 && (await page.locator('main details:not([open])').count()) > 0; i++) {
        await page.evaluate(() => document.querySelectorAll('main details:not([open])').forEach((d) => { (d as HTMLDetailsElement).open = true; }));
        await page.waitForTimeout(200);
      }
      expect(await bareNumbers(page), `Simulate ${at}`).toEqual([]);
      await page.goto(`/#/compare/${at}`);
      await expect(page.getByTestId('compare-right')).toBeVisible();
      await page.keyboard.press('End');
      expect(await bareNumbers(page), `Compare ${at}`).toEqual([]);
      await page.goto(`/#/sim/${at}`);
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await expect(page.locator('.editor-form[data-complete="true"]')).toBeVisible();
      expect(await bareNumbers(page), `Edit ${at}`).toEqual([]);
    }
  });
}

test('a refused link says what is wrong with each duration\'s unit', async ({ page }) => {
  const s = findPreset('pexpire-renewal')!.withoutFix;
  const links = [
    // The renewal margin at or past the renewal period: "must be less than Renew every (3000 ms)".
    [jsonLink({ s: { ...s, client: { ...s.client, renewMarginMs: 5_000 } } }), '3000 ms'],
    [jsonLink({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1000, pauseMs: 1e15 }] }), 'at most 3600000 ms'],
    [jsonLink({ p: 'export-lease-expiry', x: [{ kind: 'expireLease', atMs: 3_000_000 }] }), 'Horizon (90000 ms)'],
  ] as const;
  for (const [link, says] of links) {
    await page.goto('about:blank');
    await page.goto(`/${link}`);
    await expect(page.getByTestId('notice')).toContainText(says);
    expect(await bareNumbers(page), says).toEqual([]);
  }
});
