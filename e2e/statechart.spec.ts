import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { watchErrors } from './support';

/** The worker's statechart (issue 13): the machine the engine runs, laid out by ELK in its Web Worker, following the cursor. */
test('the statechart panel draws the worker machine and highlights the state at the cursor after scrubbing', async ({ page }) => {
  const errors = watchErrors(page);
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  // Not loaded until opened (elkjs stays out of the first load).
  expect(workers.some((u) => /elk-worker/.test(u))).toBe(false);
  await page.getByText('The worker’s statechart').click();
  const svg = page.getByTestId('statechart-svg');
  await expect(svg).toBeVisible({ timeout: 30_000 });
  expect(workers.some((u) => /elk-worker/.test(u))).toBe(true);
  // Every state of the machine is drawn, and the arrows with their events.
  for (const s of ['active', 'active.idle', 'active.requesting', 'active.waiting', 'active.holding', 'active.working', 'active.performingEffect', 'active.recordingCompletion', 'active.releasing', 'active.hist', 'paused', 'crashed', 'done']) {
    await expect(svg.locator(`[data-state="${s}"]`)).toHaveCount(1);
  }
  await expect(svg.locator('[data-edge="paused|RESUME|active.hist"]')).toHaveCount(1);
  // Each state in the timeline's words, its machine name on hover.
  await expect(svg.locator('[data-state="active.performingEffect"] > text').first()).toHaveText('performing the effect');
  await expect(svg.locator('[data-state="active.performingEffect"] > title')).toHaveText('performing the effect (machine state performingEffect)');
  expect(await svg.locator('text').allTextContents()).not.toContainEqual(expect.stringMatching(/\b[a-z]+[A-Z][A-Za-z]*\b/));
  // Before the first event: idle, inside active.
  await expect(svg.locator('.sc-state.current')).toHaveAttribute('data-state', 'active.idle');

  // Scrub forward: B asks for the lease A holds and waits.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('cursor-readout')).toContainText('event 8/');
  await expect(page.getByTestId('statechart-now')).toContainText('B is waiting');
  await expect(svg.locator('.sc-state.current')).toHaveAttribute('data-state', 'active.waiting');
  await expect(svg.locator('[data-state="active"]')).toHaveClass(/\bactive\b/);
  await expect(svg.locator('.sc-edge.next')).toHaveCount(1);
  await expect(svg.locator('.sc-edge.next')).toHaveAttribute('data-edge', /^active\.waiting\|(WAIT|GRANTED)\|/);

  // Worker A at the same cursor: holding the lease (or working under it), not waiting.
  await page.getByTestId('statechart').getByRole('combobox', { name: 'Worker to follow' }).selectOption('A');
  await expect(page.getByTestId('statechart-now')).toContainText(/A is (holding the lock|working|performing the effect|recording completion|releasing|paused)/);
  await expect(svg.locator('.sc-state.current')).not.toHaveAttribute('data-state', 'active.waiting');

  const results = await new AxeBuilder({ page }).include('[data-testid="statechart-section"]').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

  // The end of the run: A is done, no arrow left to take.
  await page.getByRole('button', { name: 'Go to the end (End)' }).click();
  await expect(svg.locator('.sc-state.current')).toHaveAttribute('data-state', 'done');
  await expect(svg.locator('.sc-edge.next')).toHaveCount(0);
  expect(errors).toEqual([]);
});
