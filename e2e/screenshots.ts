/**
 * Saves screenshots of the main views at 1280×800 and 1920×1080 under docs/ (run with
 * `npx tsx e2e/screenshots.ts` while `vite preview --port 4173` serves the build).
 */
import { chromium } from '@playwright/test';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:4173';

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
    await page.close();
  }
  await browser.close();
}

void main();
