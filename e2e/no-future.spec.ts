import { test, expect, type BrowserContext, type Page } from '@playwright/test';
import { findPreset, runScenario } from '../src/sim';
import { watchErrors } from './support';

/**
 * Predict-then-reveal hides the future by leaving it out of the page, not by hatching over it: in
 * a lesson before its reveal and in the workshop's audience window, nothing of an event after the
 * cursor — its sentence, its write on the destination lane, its worker's later state — is in the
 * page text, the accessibility tree or any accessible name; after the reveal it is.
 */

/** The page text, its accessibility snapshot, and every accessible name and tooltip in the DOM. */
async function everything(page: Page): Promise<{ text: string; aria: string; names: string }> {
  const text = await page.evaluate(() => document.body.innerText);
  const aria = await page.locator('body').ariaSnapshot();
  const names = await page.evaluate(() => [...document.querySelectorAll('[aria-label], [title], title')].map((el) => `${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('title') ?? ''} ${el.tagName === 'title' ? el.textContent : ''}`).join('\n'));
  return { text, aria, names };
}

// The fencing lesson's run (export-lease-expiry without the fix): A's upload is a write on the
// file store well after the first events; the narration of the run's last events is the future.
const run = runScenario(findPreset('export-lease-expiry')!.withoutFix);
const lastSentences = run.events.slice(-3).map((e) => e.narration);

test('a lesson before its reveal has nothing of the future in the page or the accessibility tree; the reveal brings it', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/lessons');
  await page.getByTestId('lesson-open-fencing').click();
  await expect(page.getByTestId('lesson-options').getByRole('checkbox')).toHaveCount(3, { timeout: 30_000 });
  // Three events in: the upload (a write on the file store) and A's pause are ahead.
  for (let i = 0; i < 3; i++) await page.getByRole('button', { name: /^Next: next event/ }).click();
  await expect(page.getByTestId('cursor-readout')).toContainText('event 3');
  await expect(page.getByTestId('cursor-readout')).not.toContainText('event 3/');
  const before = await everything(page);
  for (const where of [before.text, before.aria, before.names]) {
    for (const s of lastSentences) expect(where).not.toContain(s);
    expect(where).not.toContain('Write #');
    expect(where).not.toMatch(/A: paused|A paused/);
  }
  expect(before.names).toMatch(/lanes up to .*, the rest hidden/);

  await page.getByTestId('lesson-check').click();
  await page.getByTestId('lesson-reveal').click();
  await expect(page.getByTestId('lesson-reveal-panel')).toBeVisible();
  const after = await everything(page);
  expect(after.names).toContain('Write #');
  expect(after.names).toMatch(/A: paused/);
  expect(errors).toEqual([]);
});

/** export-lease-expiry in presenter mode, and its audience window once it shows. */
async function openAudience(page: Page, context: BrowserContext): Promise<Page> {
  await page.goto('/#/sim/export-lease-expiry');
  await page.getByTestId('present').click();
  const [audience] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-audience').click()]);
  await expect(audience.getByTestId('audience')).toBeVisible();
  return audience;
}

test('the workshop audience window: a display without controls, nothing after the cursor until the presenter reveals; only the clicker\'s keys are forwarded', async ({ page, context }) => {
  const errors = watchErrors(page);
  const audience = await openAudience(page, context);
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expect(audience.getByTestId('workshop-now')).toHaveText((await page.getByTestId('workshop-now').textContent()) ?? '');
  // A display: no button, no slider to drag, no "Reveal now".
  await expect(audience.getByRole('button')).toHaveCount(0);
  await expect(audience.getByText('Reveal now')).toHaveCount(0);
  await expect(audience.getByRole('toolbar')).toHaveCount(0);
  const before = await everything(audience);
  for (const where of [before.text, before.aria, before.names]) {
    for (const s of lastSentences) expect(where).not.toContain(s);
    expect(where).not.toContain('Write #');
    // The catalogue's title tells the outcome ("… the lease expires under a paused worker").
    expect(where).not.toContain('lease expires');
  }
  await expect(audience.getByRole('heading', { level: 1 })).toHaveText(/^2 workers /);
  // Keys pressed in the audience's window: End and V are the presenter's own, not forwarded.
  const position = await page.getByTestId('presenter-position').textContent();
  await audience.keyboard.press('End');
  await audience.keyboard.press('v');
  await audience.keyboard.press('Escape');
  await page.waitForTimeout(300);
  await expect(page.getByTestId('presenter-position')).toHaveText(position ?? '');
  await expect(page.getByTestId('vote')).toHaveCount(0);
  // The clicker's → is.
  await audience.keyboard.press('ArrowRight');
  await expect(page.getByTestId('presenter-position')).not.toHaveText(position ?? '');

  // The presenter reveals: the whole run is drawn, the verdict shows.
  await page.keyboard.press('r');
  await expect(audience.getByTestId('verdict')).toContainText('Violated');
  const after = await everything(audience);
  expect(after.names).toContain('Write #');
  await expect(audience.getByRole('heading', { level: 1 })).toContainText('lease expires');
  await expect(audience.getByRole('button')).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the workshop vote shows the audience nothing of the future: the answer is the next event, the wrong options happen nowhere in the run', async ({ page, context }) => {
  const errors = watchErrors(page);
  const audience = await openAudience(page, context);
  const said = new Set(run.events.map((e) => e.narration));
  for (const steps of [3, 6]) {
    await page.keyboard.press('Home');
    for (let i = 0; i < steps; i++) await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('presenter-position')).toContainText(`Event ${steps} of`);
    await expect(audience.getByTestId('workshop-now')).toHaveText((await page.getByTestId('workshop-now').textContent()) ?? '');
    const cursor = steps - 1;
    await page.keyboard.press('v');
    await expect(audience.getByTestId('vote')).toBeVisible();
    const options = await audience.locator('[data-testid="vote"] .vote-text').allTextContents();
    expect(options).toHaveLength(3);
    // The right option is the next event; the wrong ones are said by no event of the run, before or after the cursor.
    expect(options.filter((o) => said.has(o))).toEqual([run.events[cursor + 1]!.narration]);
    // Nothing said only after the vote's answer shows in the audience's text, accessibility tree or names.
    const shown = new Set(run.events.slice(0, cursor + 2).map((e) => e.narration));
    const future = run.events.slice(cursor + 2).map((e) => e.narration).filter((n) => !shown.has(n));
    expect(future.length).toBeGreaterThan(0);
    const during = await everything(audience);
    for (const where of [during.text, during.aria, during.names]) {
      for (const s of future) expect(where, `asked at event ${steps}`).not.toContain(s);
      expect(where).not.toContain('lease expires');
    }
    // The presenter's hint says what the reveal reveals: the vote's answer, not the run.
    await expect(page.getByTestId('vote')).toContainText('reveal the vote’s answer');
    await page.keyboard.press('r');
    await expect(audience.locator('.vote-answer')).toContainText(run.events[cursor + 1]!.narration);
    await expect(audience.locator('body')).not.toContainText('Violated');
    const revealed = await everything(audience);
    for (const s of future) expect(revealed.text).not.toContain(s);
    await page.keyboard.press('Escape');
    await expect(audience.getByTestId('vote')).toHaveCount(0);
  }
  expect(errors).toEqual([]);
});
