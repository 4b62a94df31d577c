/**
 * Saves screenshots of the main views at 1280×800 and 1920×1080 under docs/ (run with
 * `npx tsx e2e/screenshots.ts` while `vite preview --port 4173` serves the build).
 */
import { chromium } from '@playwright/test';
import { lz } from './support';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:4173';
/** A link whose faults break three rules (a negative pause, a huge one, a fault after the run). */
const BAD = lz.compressToEncodedURIComponent(JSON.stringify({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1000, pauseMs: -5 }, { kind: 'pause', worker: 'B', atMs: 2000, pauseMs: 1e15 }, { kind: 'expireLease', atMs: 3_000_000 }] }));

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    await page.goto(`${base}/#/sim/export-lease-expiry`);
    await page.getByTestId('verdict').waitFor();
    for (let i = 0; i < 38; i++) await page.keyboard.press('ArrowRight');
    await page.screenshot({ path: `docs/screenshot-${w}.png` });
    await page.goto(`${base}/#/compare/export-lease-expiry`);
    await page.getByTestId('compare-right').waitFor();
    await page.keyboard.press('End');
    await page.screenshot({ path: `docs/screenshot-compare-${w}.png` });
    await page.goto(`${base}/#/`);
    await page.screenshot({ path: `docs/screenshot-catalogue-${w}.png` });
    if (w === 1280) {
      // The editor with one invalid field (its message at the field and in the summary).
      await page.goto(`${base}/#/sim/export-lease-expiry`);
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByLabel('Horizon (ms)').fill('-5');
      await page.getByTestId('editor-errors').waitFor();
      await page.screenshot({ path: 'docs/screenshot-editor-1280.png' });
      // A refused link: the message names what is wrong and where; the default scenario runs.
      await page.goto('about:blank');
      await page.goto(`${base}/#v=1&s=${BAD}`);
      await page.getByTestId('notice').waitFor();
      await page.screenshot({ path: 'docs/screenshot-error-1280.png' });
    }
    await page.close();
  }
  await browser.close();
}

void main();
