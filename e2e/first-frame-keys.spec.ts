/**
 * A key pressed as soon as the page shows acts, and the link records what it did.
 *
 * The keys used to be installed by passive effects, which run after the first paint (70–120 ms
 * after the verdict entered the page on a busy 2-core machine): a key pressed in that window was
 * lost, and CI's journeys that pressed End or → the moment the verdict showed failed now and then.
 * Here the key is sent deterministically inside that window: an init script watches the DOM and,
 * in the microtask right after the commit that inserts the verdict (before any passive effect can
 * run), dispatches the key on the window.
 */
import { test, expect, type Page } from '@playwright/test';
import { jsonLink, watchErrors } from './support';

/** Dispatches `key` on the window in the microtask after `selector` first enters the DOM. */
async function pressOnFirstCommit(page: Page, selector: string, key: string): Promise<void> {
  await page.addInitScript(({ selector, key }) => {
    const w = window as unknown as { __pressed?: boolean };
    new MutationObserver((_m, obs) => {
      if (w.__pressed || !document.querySelector(selector)) return;
      w.__pressed = true;
      obs.disconnect();
      window.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    }).observe(document, { subtree: true, childList: true });
  }, { selector, key });
}

/** The transport's "event i/n". */
async function eventOf(page: Page): Promise<{ at: number; of: number }> {
  const text = (await page.getByTestId('cursor-readout').textContent()) ?? '';
  const m = /event (\d+)\/(\d+)/.exec(text);
  return { at: Number(m?.[1] ?? -1), of: Number(m?.[2] ?? -2) };
}

test('the simulator: End pressed in the commit that shows the verdict moves the cursor to the last event, and the link keeps it', async ({ page }) => {
  const errors = watchErrors(page);
  await pressOnFirstCommit(page, '[data-testid=verdict]', 'End');
  await page.goto('/#/sim/pooler-session-lock');
  await expect(page.getByTestId('verdict')).toBeVisible();
  await expect.poll(async () => { const e = await eventOf(page); return e.at === e.of; }).toBe(true);
  // The link follows the move: a reload opens at the last event too.
  await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#v=1&s=/);
  await page.waitForTimeout(600);
  await page.reload();
  await expect(page.getByTestId('verdict')).toBeVisible();
  await expect.poll(async () => { const e = await eventOf(page); return e.at === e.of; }).toBe(true);
  expect(errors).toEqual([]);
});

test('the embed: → pressed in the commit that shows the verdict steps to event 1', async ({ page }) => {
  const errors = watchErrors(page);
  await pressOnFirstCommit(page, '[data-testid=verdict]', 'ArrowRight');
  await page.goto(`/${jsonLink({ p: 'export-lease-expiry', e: 1 })}`);
  await expect(page.getByTestId('embed')).toBeVisible();
  await expect.poll(async () => (await eventOf(page)).at).toBe(1);
  expect(errors).toEqual([]);
});
