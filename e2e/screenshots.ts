/**
 * Saves the README's screenshots under docs/: the main views at 1280×800 and 1920×1080, in normal
 * and large type, the steps of "Using Lockscope" (pick, scrub, inject a fault, compare,
 * share, break my design) and the workshop's two windows. Run it against the app as README.md starts it (`npm run dev`), e.g.
 * `BASE_URL=http://127.0.0.1:5173 npx tsx e2e/screenshots.ts`, or against `vite preview`.
 */
import { chromium, type Page } from '@playwright/test';
import { lz } from './support';

const base = process.env.BASE_URL ?? 'http://127.0.0.1:5173';
/** A link whose faults break three rules (a negative pause, a huge one, a fault after the run). */
const BAD = lz.compressToEncodedURIComponent(JSON.stringify({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1000, pauseMs: -5 }, { kind: 'pause', worker: 'B', atMs: 2000, pauseMs: 1e15 }, { kind: 'expireLease', atMs: 3_000_000 }] }));

/** Opens `hash` with the display preferences set, and waits for the app. */
async function open(page: Page, hash: string, largeType: boolean, ready = '[data-testid="verdict"]'): Promise<void> {
  await page.goto('about:blank');
  await page.goto(`${base}/`);
  await page.evaluate((l) => localStorage.setItem('lockscope:prefs:v1', JSON.stringify({ largeType: l, theme: 'light' })), largeType);
  // A new document (a hash change alone would not reload the preferences).
  await page.goto('about:blank');
  await page.goto(`${base}/${hash}`);
  await page.locator(ready).first().waitFor();
  await page.waitForTimeout(500);
}

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
    for (const large of [false, true]) {
      const sfx = `${w}${large ? '-large' : ''}`;
      const page = await browser.newPage({ viewport: { width: w, height: h } });
      await open(page, '#/sim/export-lease-expiry', large);
      for (let i = 0; i < 38; i++) await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(300);
      await page.screenshot({ path: `docs/screenshot-${sfx}.png` });
      await open(page, '#/compare/export-lease-expiry', large, '[data-testid="compare-right"]');
      await page.keyboard.press('End');
      await page.waitForTimeout(300);
      await page.screenshot({ path: `docs/screenshot-compare-${sfx}.png` });
      await open(page, '#/', large, 'li.preset');
      await page.screenshot({ path: `docs/screenshot-catalogue-${sfx}.png` });
      await page.close();
    }
  }

  // "Using Lockscope", at 1280×800 in normal type.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // 1. Pick a scenario (the catalogue).
  await open(page, '#/', false, 'li.preset');
  await page.screenshot({ path: 'docs/using-1-pick.png' });
  // 2. Scrub: the SQL race, mid-run, a reply's meaning on hover.
  await open(page, '#/sim/invoice-race', false);
  for (let i = 0; i < 11; i++) await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(300);
  await page.locator('.log-row.current .log-reply').hover();
  await page.waitForTimeout(200);
  await page.screenshot({ path: 'docs/using-2-scrub.png' });
  // 3. Inject a fault: the fault menu on worker B's lane.
  await open(page, '#/sim/export-lease-expiry/fixed', false);
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  await page.getByRole('button', { name: /^Worker B: add a fault at the cursor/ }).click();
  await page.getByRole('menu').waitFor();
  await page.screenshot({ path: 'docs/using-3-fault.png' });
  // 4. Compare without and with the fix under the same faults.
  await open(page, '#/compare/fence-ignored', false, '[data-testid="compare-right"]');
  await page.keyboard.press('End');
  await page.waitForTimeout(300);
  await page.screenshot({ path: 'docs/using-4-compare.png' });
  // 5. Share: the share panel and "About this run".
  await open(page, '#/sim/export-lease-expiry', false);
  await page.locator('.share-actions').first().scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 120));
  await page.waitForTimeout(200);
  await page.screenshot({ path: 'docs/using-5-share.png' });
  // 6. Break my design: the counterexample and the mechanism × fault-kind matrix (≤ 1 fault).
  await open(page, '#/sim/export-lease-expiry', false);
  await page.getByText('Break my design — explore every fault schedule').click();
  const panel = page.getByTestId('explore');
  await panel.getByLabel('Faults per schedule').selectOption('1');
  await panel.getByRole('button', { name: 'Explore' }).click();
  await panel.getByTestId('explore-report').waitFor();
  await panel.getByRole('button', { name: 'Compute the matrix' }).click();
  await panel.getByRole('button', { name: 'Compute again' }).waitFor({ timeout: 120_000 });
  await panel.screenshot({ path: 'docs/using-6-explore.png' });

  // The workshop: two bookmarks, the presenter's window with a vote revealed, and the audience's
  // window at 1280×800 and on a 1920×1080 projector (its timeline drawn larger: --timeline-scale).
  {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.addInitScript(() => localStorage.setItem('lockscope:prefs:v1', JSON.stringify({ largeType: false, theme: 'light' })));
    const pres = await ctx.newPage();
    await pres.goto(`${base}/#/sim/export-lease-expiry`);
    await pres.getByTestId('verdict').waitFor();
    for (const [steps, note] of [[3, 'A pauses here'], [14, 'A still believes it owns the lease']] as const) {
      await pres.keyboard.press('Home');
      for (let i = 0; i < steps; i++) await pres.keyboard.press('ArrowRight');
      await pres.getByTestId('bookmark-note').fill(note);
      await pres.getByTestId('bookmark-add').click();
    }
    await pres.getByTestId('present').click();
    const [aud] = await Promise.all([ctx.waitForEvent('page'), pres.getByTestId('open-audience').click()]);
    await aud.setViewportSize({ width: 1280, height: 800 });
    await aud.getByTestId('audience').waitFor();
    await pres.keyboard.press('Home');
    for (let i = 0; i < 14; i++) await pres.keyboard.press('ArrowRight');
    await pres.keyboard.press('v');
    await pres.getByTestId('tally-0').fill('3');
    await pres.getByTestId('tally-1').fill('7');
    await pres.getByTestId('tally-2').fill('12');
    await pres.getByTestId('next-step').click();
    await aud.locator('.vote-answer').waitFor();
    await pres.waitForTimeout(300);
    await pres.screenshot({ path: 'docs/using-9-presenter.png' });
    await aud.screenshot({ path: 'docs/using-9-audience.png' });
    await aud.setViewportSize({ width: 1920, height: 1080 });
    await aud.waitForTimeout(500);
    await aud.screenshot({ path: 'docs/using-9-audience-1920.png' });
    await ctx.close();
  }

  // The editor with one invalid field (its message at the field and in the summary).
  await open(page, '#/sim/export-lease-expiry', false);
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByLabel('Horizon (ms)').fill('-5');
  await page.getByTestId('editor-errors').waitFor();
  await page.screenshot({ path: 'docs/screenshot-editor-1280.png' });
  // A refused link: the message names what is wrong and where; the default scenario runs.
  await page.goto('about:blank');
  await page.goto(`${base}/#v=1&s=${BAD}`);
  await page.getByTestId('notice').waitFor();
  await page.screenshot({ path: 'docs/screenshot-error-1280.png' });
  await page.close();
  await browser.close();
}

void main();
