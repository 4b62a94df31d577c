import { test, expect, type Locator, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { watchErrors } from './support';

async function seriousAxe(page: Page): Promise<string[]> {
  const r = await new AxeBuilder({ page }).analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);
}

/** Presses Tab (or Shift+Tab) until `target` has the focus: the keyboard's way there. */
async function tabTo(page: Page, target: Locator, back = false, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`could not reach ${target} with ${back ? 'Shift+Tab' : 'Tab'} in ${max} presses`);
}

test('lessons: a learner completes the fencing lesson by keyboard alone — prediction checked, reveal with the cited events, the exercise graded by the fault search; progress kept; the lesson state is a link', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/');
  await page.getByTestId('to-lessons').click();
  await expect(page.getByRole('heading', { name: 'Lessons', level: 1 })).toBeVisible();
  await expect(page.getByTestId('lesson-progress')).toHaveText('0 of 8 lessons done.');
  expect(await seriousAxe(page)).toEqual([]);
  await page.screenshot({ path: 'test-results/lessons-path-1280x800.png' });

  await tabTo(page, page.getByTestId('lesson-open-fencing'));
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Fencing token: Nightly export');
  await expect(page.getByTestId('lesson-question')).toContainText("it can pause longer than the TTL. Which of these fault schedules breaks");
  // The exercise asks for the fix: the "with the fix" radio and the fix sentence stay hidden.
  await expect(page.getByText('with the fix')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText('The fix:');
  const options = page.getByTestId('lesson-options');
  await expect(options.getByRole('checkbox')).toHaveCount(3, { timeout: 30_000 });

  // Predict: tick A (Space), then check.
  await tabTo(page, page.getByTestId('lesson-option-0'));
  await page.keyboard.press('Space');
  await expect(page.getByTestId('lesson-option-0')).toBeChecked();
  await tabTo(page, page.getByTestId('lesson-check'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('lesson-verdict')).toContainText(/Right\.|Not quite\./);
  await expect(page.getByTestId('lesson-verdict')).toContainText(/Breaks: [A-C]/);

  // Reveal: each schedule's outcome, with the events the violation cites.
  await tabTo(page, page.getByTestId('lesson-reveal'));
  await page.keyboard.press('Enter');
  const reveal = page.getByTestId('lesson-reveal-panel');
  await expect(reveal).toContainText('breaks —');
  await expect(reveal.locator('.cited li').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/lesson-reveal-1280x800.png', fullPage: true });

  // The lesson's state is a link: a reload opens the same question at the same stage.
  const before = await reveal.textContent();
  await page.waitForTimeout(400);
  await page.reload();
  await expect(page.getByTestId('lesson-reveal-panel')).toHaveText(before ?? '', { timeout: 30_000 });

  await tabTo(page, page.getByTestId('lesson-to-exercise'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('lesson-exercise')).toBeVisible();
  // The starting design fails the exercise.
  await tabTo(page, page.getByTestId('lesson-grade'));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('lesson-grade-result')).toContainText('Not yet. Broken with 1 fault: Pause', { timeout: 30_000 });
  // Turn the fencing token on (the mechanism panel), then check again.
  const fencing = page.getByRole('checkbox', { name: /fencing/i });
  await tabTo(page, fencing);
  await page.keyboard.press('Space');
  await expect(fencing).toBeChecked();
  await tabTo(page, page.getByTestId('lesson-grade'), true);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('lesson-grade-result')).toContainText('It holds. Safe against ≤ 1 fault of these kinds: pause', { timeout: 30_000 });
  await expect(page.getByTestId('lesson-done')).toContainText('fencing token');
  expect(await seriousAxe(page)).toEqual([]);
  await page.screenshot({ path: 'test-results/lesson-1280x800.png' });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: 'test-results/lesson-1920x1080.png' });

  // On to the next lesson, then the path shows the progress.
  await tabTo(page, page.getByTestId('lesson-next'), true);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Idempotency');
  await page.goto('/#/lessons');
  await expect(page.getByTestId('lesson-progress')).toHaveText('1 of 8 lessons done.');
  await expect(page.getByRole('listitem').filter({ hasText: 'Fencing token' })).toContainText('done');
  expect(errors).toEqual([]);
});

test('lesson 1 says nothing of the outcome before the prediction; Help inside a lesson describes the lesson', async ({ page }) => {
  const errors = watchErrors(page);
  await page.goto('/#/lessons');
  await page.getByTestId('lesson-open-invariant').click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Start from the invariant: Two workers, one thumbnail');
  await expect(page.getByTestId('lesson-options').getByRole('checkbox')).not.toHaveCount(0, { timeout: 30_000 });
  const main = page.locator('main');
  for (const w of ['no invariant breaks', 'Held', 'no violation', 'redundant', 'DUPLICATE']) await expect(main).not.toContainText(w);
  await expect(page.locator('.marks-note')).toHaveText('verdict hidden');
  // Help: the lesson's steps, not the interview's.
  await page.getByRole('button', { name: 'Help', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Help' });
  await expect(dialog.getByRole('heading', { name: 'Using a guided lesson' })).toBeVisible();
  await expect(dialog).toContainText('Check my prediction');
  await expect(dialog).not.toContainText('Choose a mechanism on the left');
  await page.keyboard.press('Escape');
  // After the prediction and the reveal, the catalogue's account and the verdict show.
  await page.getByTestId('lesson-check').click();
  await page.getByTestId('lesson-reveal').click();
  await expect(page.getByTestId('lesson-catalogue')).toContainText('no invariant breaks');
  await expect(page.locator('.marks-note')).toHaveText('notes, no violation ▸');
  // The question, each option's mark, the reveal and the timeline agree: the scenario checks no
  // invariant a run can break (its duplicate is declared harmless), so the question asks about the
  // duplicate, never about "the external effect happens at most once" (found by a newcomer: every
  // option "— holds" beside a DUPLICATE the timeline drew).
  await expect(page.getByTestId('lesson-question')).toContainText('Which of these fault schedules produce thumbs/42.png more than once?');
  await expect(page.getByTestId('lesson-question')).not.toContainText('at most once');
  const marks = await page.getByTestId('lesson-options').locator('label strong').allTextContents();
  const items = page.getByTestId('lesson-reveal-panel').locator('ol.lesson-reveal > li');
  await expect(items).toHaveCount(marks.length);
  const dupOnTimeline = () => page.evaluate(() => [...document.querySelectorAll('[aria-label], title, text')].some((el) => /DUPLICATE/.test(`${el.getAttribute('aria-label') ?? ''} ${el.textContent ?? ''}`)));
  for (let i = 0; i < marks.length; i++) {
    const twice = marks[i]!.includes('— more than once');
    if (!twice) expect(marks[i]).toContain('— not more than once');
    await expect(items.nth(i)).toContainText(twice ? 'more than once, and no invariant breaks' : 'at most once; no invariant breaks');
    await items.nth(i).getByRole('button', { name: /^Show [A-C] on the timeline$/ }).click();
    await expect.poll(dupOnTimeline).toBe(twice);
  }
  expect(errors).toEqual([]);
});
