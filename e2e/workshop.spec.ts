import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { watchErrors } from './support';
import { timelineCollisions } from './collisions';

async function seriousAxe(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}

const cursorOf = (page: Page) => page.locator('.cursor-grip').first().getAttribute('aria-valuenow');

test('workshop: bookmarks kept in the link; the presenter opens the audience window and both stay in step through 20 steps, a vote, a blank screen and a reveal', async ({ page, context }) => {
  const errors = watchErrors(page);
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  // Two bookmarks: at 3 s and at 33 s, with notes.
  for (const [steps, note] of [[3, 'A pauses here'], [14, 'here A still believes it owns the lease']] as const) {
    await page.keyboard.press('Home');
    for (let i = 0; i < steps; i++) await page.keyboard.press('ArrowRight');
    await page.getByTestId('bookmark-note').fill(note);
    await page.getByTestId('bookmark-add').click();
  }
  await expect(page.getByTestId('bookmark-list').getByRole('listitem')).toHaveCount(2);
  await expect(page.getByTestId('bookmark-markers').getByRole('button')).toHaveCount(2);
  // ] and [ step through them in order.
  // The grip's aria-valuenow follows the store a render later: wait for each move before reading it
  // (read at once, a busy machine gave the value from before the key).
  await page.keyboard.press('Home');
  await expect.poll(() => cursorOf(page)).toBe('0');
  await page.keyboard.press(']');
  await expect.poll(() => cursorOf(page)).not.toBe('0');
  const first = await cursorOf(page);
  await page.keyboard.press(']');
  await expect.poll(() => cursorOf(page)).not.toBe(first);
  const second = await cursorOf(page);
  expect(Number(second)).toBeGreaterThan(Number(first));
  await page.keyboard.press('[');
  await expect.poll(() => cursorOf(page)).toBe(first);
  // The link keeps them: a reload shows both.
  await page.waitForTimeout(400);
  await page.reload();
  await expect(page.getByTestId('bookmark-list').getByRole('listitem')).toHaveCount(2);
  await expect(page.getByRole('textbox', { name: 'Note of bookmark 2' })).toHaveValue('here A still believes it owns the lease');

  await page.getByTestId('present').click();
  await expect(page.getByRole('heading', { name: /^Presenter/ })).toBeVisible();
  const [audience] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-audience').click()]);
  const audErrors = watchErrors(audience);
  await expect(audience.getByTestId('audience')).toBeVisible();
  await expect(audience.getByTestId('verdict')).toContainText(/hidden/i);

  const inStep = async () => {
    const want = await page.getByTestId('workshop-now').textContent();
    await expect(audience.getByTestId('workshop-now')).toHaveText(want ?? '');
    await expect.poll(() => cursorOf(audience)).toBe(await cursorOf(page));
  };
  await inStep();
  const keys = ['ArrowRight', 'ArrowRight', 'ArrowRight', ']', 'ArrowRight', 'ArrowLeft', 'ArrowRight', ']', 'ArrowRight', 'ArrowRight', '[', 'ArrowRight', 'ArrowRight', 'ArrowLeft', 'ArrowRight', 'ArrowRight', ']', 'ArrowRight', 'ArrowLeft', 'ArrowRight'];
  expect(keys).toHaveLength(20);
  const seen = new Set<string>();
  for (const k of keys) {
    await page.keyboard.press(k);
    await inStep();
    seen.add((await page.getByTestId('workshop-now').textContent()) ?? '');
  }
  expect(seen.size).toBeGreaterThan(5);
  // At a bookmark the presenter sees its note; the audience never does.
  await page.keyboard.press('Home');
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  await expect(page.getByTestId('presenter-note')).toContainText('here A still believes it owns the lease');
  await inStep();
  await expect(audience.locator('body')).not.toContainText('here A still believes');

  // Predict-then-reveal: the presenter asks, enters the tally, then reveals.
  await page.keyboard.press('v');
  await expect(audience.getByTestId('vote')).toBeVisible();
  await page.getByTestId('tally-1').fill('7');
  await expect(audience.getByTestId('vote-option-1')).toContainText('7 hands');
  const options = await audience.getByTestId('vote').getByRole('listitem').allTextContents();
  // (Focus is in the tally field, where arrows edit the number: the button reveals.)
  await expect(page.getByTestId('next-step')).toContainText('Reveal the vote');
  await page.getByTestId('next-step').click();
  // (Options said at the revealed instant are right too: at least one is marked.)
  const answer = audience.locator('.vote-answer').first();
  await expect(answer).toContainText('this happens');
  await inStep();
  const now = (await audience.getByTestId('workshop-now').textContent()) ?? '';
  expect(options.some((o) => now.includes(o.replace(/^[A-C]/, '').replace(/7 hands$/, '').trim().slice(0, 30)))).toBe(true);
  await page.screenshot({ path: 'test-results/workshop-presenter-1280x800.png' });
  await audience.setViewportSize({ width: 1280, height: 800 });
  await audience.screenshot({ path: 'test-results/workshop-audience-1280x800.png' });
  await page.keyboard.press('ArrowRight'); // closes the revealed vote, next event
  await expect(audience.getByTestId('vote')).toHaveCount(0);
  await inStep();

  // A key pressed in the audience window drives the presenter (a clicker aimed at the projector).
  const before = await cursorOf(page);
  await audience.keyboard.press('ArrowRight');
  await expect.poll(() => cursorOf(page)).not.toBe(before);
  await inStep();

  // Blank screen, and back.
  await page.keyboard.press('b');
  await expect(audience.getByTestId('blank-screen')).toBeVisible();
  await page.keyboard.press('b');
  await expect(audience.getByTestId('blank-screen')).toHaveCount(0);

  // Reveal: the audience sees the verdict.
  await page.keyboard.press('r');
  await expect(audience.getByTestId('verdict')).toContainText('Violated');

  // A reloaded audience window catches up (it says hello; the presenter answers).
  await audience.reload();
  await inStep();

  expect(await seriousAxe(page)).toEqual([]);
  expect(await seriousAxe(audience)).toEqual([]);
  await page.setViewportSize({ width: 1920, height: 1080 });
  await audience.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: 'test-results/workshop-presenter-1920x1080.png' });
  await audience.screenshot({ path: 'test-results/workshop-audience-1920x1080.png' });
  expect([...errors, ...audErrors]).toEqual([]);
});

/** The timeline's text sizes on screen, px: a lane name's font size, and the tallest tick label and bar word drawn. */
async function timelineTextPx(page: Page): Promise<{ lane: number; tick: number; word: number }> {
  return page.evaluate(() => {
    const tl = document.querySelector('.timeline')!;
    const lane = parseFloat(getComputedStyle(tl.querySelector('.lane-label')!).fontSize);
    const tallest = (sel: string) => Math.max(0, ...[...tl.querySelectorAll(sel)].filter((t) => (t.textContent ?? '').trim()).map((t) => t.getBoundingClientRect().height));
    return { lane, tick: tallest('g.axis g.tick text'), word: tallest('g.content text') };
  });
}

/** Lane names cut short (an ellipsis) and a page wider than its window, as sentences. */
async function cutOrWide(page: Page): Promise<string[]> {
  return page.evaluate(() => [
    ...[...document.querySelectorAll<HTMLElement>('.lane-label')].filter((l) => l.scrollWidth > l.clientWidth + 1).map((l) => `lane name "${l.textContent}" is cut`),
    ...(document.documentElement.scrollWidth > window.innerWidth ? [`the page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`] : []),
  ]);
}

for (const preset of ['export-lease-expiry', 'invoice-race'] as const) {
  test(`workshop, ${preset}: on a 1920×1080 projector the audience's timeline is drawn at least 1.5× the presenter's, nothing in it collides there or at 1280×800 and a vote stays on the screen (axe: 0 serious)`, async ({ page, context }) => {
    const errors = watchErrors(page);
    await page.setViewportSize({ width: 1920, height: 1080 });
    await page.goto(`/#/sim/${preset}`);
    await expect(page.getByTestId('verdict')).toBeVisible();
    await page.getByTestId('present').click();
    const [audience] = await Promise.all([context.waitForEvent('page'), page.getByTestId('open-audience').click()]);
    const audErrors = watchErrors(audience);
    await expect(audience.getByTestId('audience')).toBeVisible();
    await audience.setViewportSize({ width: 1920, height: 1080 });
    await page.keyboard.press('Home');
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(() => cursorOf(audience)).toBe(await cursorOf(page));

    const pres = await timelineTextPx(page);
    // (The audience's lane names follow the drawing's scale once its timeline has read --timeline-scale.)
    await expect.poll(async () => (await timelineTextPx(audience)).lane / pres.lane).toBeGreaterThanOrEqual(1.5);
    const aud = await timelineTextPx(audience);
    expect(aud.tick / pres.tick, `tick labels ${aud.tick} px vs ${pres.tick} px`).toBeGreaterThanOrEqual(1.5);
    expect(aud.word / pres.word, `bar words ${aud.word} px vs ${pres.word} px`).toBeGreaterThanOrEqual(1.5);

    // Nothing collides, none of the lane names is cut and the page is no wider than the window:
    // part-way (the rest under the curtain) and revealed at the end, on the projector and at 1280×800.
    const found: string[] = [];
    const check = async (when: string) => {
      for (const [w, h] of [[1920, 1080], [1280, 800]] as const) {
        await audience.setViewportSize({ width: w, height: h });
        await expect.poll(() => cursorOf(audience)).toBe(await cursorOf(page));
        // Drawn at this size: the lane names' font (the style sheet's media query) and the SVG's
        // scale (the timeline's reading of --timeline-scale) agree again, 14 px of name per unit.
        await expect.poll(() => audience.evaluate(() => {
          const svg = document.querySelector<SVGSVGElement>('svg.timeline-svg')!;
          return Math.round(parseFloat(getComputedStyle(document.querySelector('.lane-label')!).fontSize) / (svg.width.baseVal.value / svg.viewBox.baseVal.width) * 10) / 10;
        })).toBe(14);
        found.push(...[...await timelineCollisions(audience), ...await cutOrWide(audience)].map((c) => `${when}, ${w}×${h}: ${c}`));
      }
    };
    await check('part-way');
    // A vote stays whole on the screen at 1280×800 too (the window cannot scroll: it has no controls).
    // Asked after the fourth event: export-lease-expiry's options then ran 19 px past the bottom.
    await page.keyboard.press('Home');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('v');
    for (const [w, h] of [[1280, 800], [1920, 1080]] as const) {
      await audience.setViewportSize({ width: w, height: h });
      await expect(audience.getByTestId('vote')).toBeVisible();
      await expect.poll(() => audience.getByTestId('vote').evaluate((el) => Math.round(el.getBoundingClientRect().bottom)), `the vote's bottom at ${w}×${h}`).toBeLessThanOrEqual(h);
    }
    await page.keyboard.press('Escape');
    await expect(audience.getByTestId('vote')).toHaveCount(0);
    await page.keyboard.press('End');
    await page.keyboard.press('r');
    await expect(audience.getByTestId('verdict')).not.toContainText(/hidden/i);
    await check('revealed at the end');
    expect(found).toEqual([]);
    await audience.setViewportSize({ width: 1920, height: 1080 });
    // (The projector's sizes, the verdict zoomed among them, read as well as the 1280 ones: axe at 1920.)
    expect(await seriousAxe(audience)).toEqual([]);
    await audience.screenshot({ path: `test-results/workshop-audience-${preset}-projector.png` });
    expect([...errors, ...audErrors]).toEqual([]);
  });
}
