/**
 * Every mode in every theme (light, dark, projector): the interview's setup (its warning shown), candidate and interviewer,
 * the workshop's presenter and audience, a guided lesson before and after its reveal — no serious or
 * critical axe violation, and a screenshot at 1280×800 and 1920×1080 of each, to look at
 * (test-results/modes-<theme>-<mode>-<size>.png). The mode journeys (interview, workshop, lessons)
 * scan the default theme only.
 */
import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { watchErrors } from './support';
import { findPreset } from '../src/sim';
import { encodeShare, shareFromScenario, type ShareExtra } from '../src/share/link';

const notes = { t: 'Secret_token_123456', a: 'Compare-and-delete release: the script deletes the key only while it holds our token.', q: [{ q: 'Starting design, with a pause of A: walk me through what happens.', x: [] }], r: ['States the invariant before choosing a mechanism'] };
const g = { k: ['pause', 'crash'], n: 1 };

/**
 * Each mode: its link (the extra fields on a preset's scenario, or how the app makes it: the
 * presenter's window from "Present", the audience's from the link the presenter is given, which
 * asks for predict mode and large type), and what says it has opened.
 */
const MODES: readonly { name: string; preset: string; extra: ShareExtra | ((p: Page) => Promise<void>); ready: (p: Page) => Promise<void> }[] = [
  { name: 'candidate', preset: 'fence-ignored', extra: { i: 1, g }, ready: async (p) => { await expect(p.getByTestId('check-design')).toBeVisible(); await expect(p.getByTestId('sw-fencing-facts')).toHaveText('Workers take a token: yes (Redis INCR)'); } },
  { name: 'interview-setup', preset: 'unsafe-release', extra: openSetupWarning, ready: async (p) => { await expect(p.getByTestId('model-answer-fails')).toBeVisible(); } },
  { name: 'interviewer', preset: 'unsafe-release', extra: { i: 2, g, z: notes }, ready: async (p) => { await expect(p.getByTestId('interviewer-notes')).toBeVisible(); } },
  { name: 'presenter', preset: 'export-lease-expiry', extra: openPresenter, ready: async (p) => { await expect(p.getByTestId('open-audience')).toBeVisible(); } },
  { name: 'audience', preset: 'export-lease-expiry', extra: async (p) => { await openPresenter(p); const url = await p.getByTestId('audience-link').inputValue(); await p.goto(url); await p.reload(); }, ready: async (p) => { await expect(p.getByTestId('audience')).toBeVisible(); await expect(p.getByTestId('verdict')).toContainText(/hidden/i); } },
  { name: 'lesson', preset: 'export-lease-expiry', extra: { l: { id: 'fencing', q: 1, st: 0 } }, ready: async (p) => { await expect(p.getByTestId('lesson-options').getByRole('checkbox')).not.toHaveCount(0, { timeout: 30_000 }); } },
  { name: 'lesson-revealed', preset: 'export-lease-expiry', extra: { l: { id: 'fencing', q: 1, st: 2 } }, ready: async (p) => { await expect(p.getByRole('heading', { level: 1 })).toContainText('Fencing'); } },
];

/** The interviewer's setup for unsafe-release with pause allowed: the default-kinds note, then the warning that the model answer fails. */
async function openSetupWarning(page: Page): Promise<void> {
  await page.goto('/#/sim/unsafe-release');
  await page.reload();
  await page.getByText('Interview: two links from this scenario').click();
  await expect(page.getByTestId('default-kinds-note')).toBeVisible({ timeout: 60_000 });
  await page.getByRole('group', { name: 'Fault kinds the grading allows' }).getByRole('checkbox', { name: 'pause' }).check();
  await page.getByRole('button', { name: 'Make the links' }).click();
  await expect(page.getByTestId('model-answer-fails')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('model-answer-fails').scrollIntoViewIfNeeded();
}

/** The presenter's window, as "Present (workshop)…" opens it. */
async function openPresenter(page: Page): Promise<void> {
  await page.goto('/#/sim/export-lease-expiry');
  await page.reload();
  await page.getByTestId('present').click();
  await expect(page.getByTestId('open-audience')).toBeVisible();
}

async function seriousAxe(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}

for (const theme of ['light', 'dark', 'projector'] as const) {
  test(`modes, ${theme} theme: interview setup (its warning shown), candidate, interviewer, presenter, audience and a lesson have no serious axe violation; screenshots at two sizes`, async ({ browser }) => {
    test.setTimeout(180_000);
    for (const m of MODES) {
      // Each mode in a fresh browser context, as a reader opens its link: a page left in a candidate's
      // interview writes its own link back to the address, which a hash change and reload could race.
      const ctx = await browser.newContext({ baseURL: test.info().project.use.baseURL, viewport: { width: 1280, height: 800 } });
      await ctx.addInitScript((t) => localStorage.setItem('lockscope:prefs:v1', JSON.stringify({ theme: t, largeType: false })), theme);
      const page = await ctx.newPage();
      const errors = watchErrors(page);
      const p = findPreset(m.preset)!;
      if (typeof m.extra === 'function') await m.extra(page);
      else {
        await page.goto(`/#${encodeShare(shareFromScenario(p.withoutFix, m.extra))}`);
        await page.reload();
      }
      await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
      await m.ready(page);
      expect(await seriousAxe(page), `${m.name}, ${theme}`).toEqual([]);
      for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
        await page.setViewportSize({ width: w, height: h });
        await page.waitForTimeout(300);
        await page.screenshot({ path: `test-results/modes-${theme}-${m.name}-${w}x${h}.png` });
      }
      expect(errors, m.name).toEqual([]);
      await ctx.close();
    }
  });
}
