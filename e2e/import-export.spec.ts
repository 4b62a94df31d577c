import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { watchErrors } from './support';

test('export the scenario as JSON and import it back: same run; a bad file gives a message', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/unsafe-release');
  const original = (await page.getByTestId('trace-hash').textContent())!;
  await page.getByLabel('Lease release').selectOption('compare-and-delete');
  // "About this run" follows the edit right after the frame that shows the verdict.
  await expect(page.getByTestId('trace-hash')).not.toHaveText(original);
  const hash = (await page.getByTestId('trace-hash').textContent())!;

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export JSON' }).click()]);
  // The name says the variant: the edit is either the preset's fix or an edited scenario (issue 13).
  expect(download.suggestedFilename()).toMatch(/^unsafe-release-(with-fix|edited)\.json$/);
  const path = await download.path();
  const json = JSON.parse(readFileSync(path, 'utf8'));
  expect(json.mechanism.release).toBe('compare-and-delete');

  await page.locator('.preset-picker select').selectOption('invoice-race');
  await expect(page.getByTestId('trace-hash')).not.toHaveText(hash);
  await page.getByTestId('import-file').setInputFiles(path);
  await expect(page.getByTestId('trace-hash')).toHaveText(hash);
  await expect(page.getByLabel('Lease release')).toHaveValue('compare-and-delete');

  // A file from a newer Lockscope, and one with a bad field: a message naming where; nothing changes.
  await page.getByTestId('import-file').setInputFiles({ name: 'newer.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...json, version: 3 })) });
  await expect(page.getByTestId('notice')).toContainText('newer.json');
  await expect(page.getByTestId('notice')).toContainText('version is 3');
  await page.getByTestId('import-file').setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ ...json, workers: [{ ...json.workers[0], steps: [{ do: 'work', ms: -3 }] }] })) });
  await expect(page.getByTestId('notice')).toContainText('workers[0].steps[0].ms must be at least 0 ms');
  await page.getByTestId('import-file').setInputFiles({ name: 'junk.json', mimeType: 'application/json', buffer: Buffer.from('<html>not json') });
  await expect(page.getByTestId('notice')).toContainText('is not JSON');
  await expect(page.getByTestId('trace-hash')).toHaveText(hash);
  expect(errors).toEqual([]);
});

test('export the timeline as SVG and PNG', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/export-lease-expiry');
  await page.keyboard.press('End');
  const [svgDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Timeline SVG' }).click()]);
  expect(svgDl.suggestedFilename()).toBe('export-lease-expiry-without-fix-timeline.svg');
  const svg = readFileSync(await svgDl.path(), 'utf8');
  expect(svg).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  expect(svg).toContain('Nightly export');
  expect(svg).toContain('DUPLICATE');
  expect(svg).not.toMatch(/<script|<foreignObject|class=/);
  const [pngDl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Timeline PNG' }).click()]);
  const png = readFileSync(await pngDl.path());
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.length).toBeGreaterThan(10_000);
  expect(errors).toEqual([]);
});
