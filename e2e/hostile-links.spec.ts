import { test, expect } from '@playwright/test';
import { encodeShare } from '../src/share/link';
import { findPreset } from '../src/sim';
import { jsonLink, rawLink, watchErrors } from './support';

const base = findPreset('export-lease-expiry')!.withoutFix;
const pause = (pauseMs: unknown) => ({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'A', atMs: 1000, pauseMs }] });
const worker = base.workers[0]!;

/** [name, fragment, text the message must contain] */
const CASES: readonly (readonly [string, string, string])[] = [
  ['not lz data', '#v=1&s=%%%not-base64%%%', 'link.s'],
  ['a truncated link', `#${encodeShare({ p: 'export-lease-expiry', x: base.faults }).slice(0, 20)}`, 'link.s'],
  ['valid compression of non-JSON', rawLink('hello <b>world</b>'), 'decompresses to something that is not JSON'],
  ['JSON of the wrong shape', jsonLink([1, 2, 3]), 'link'],
  ['a scenario of the wrong shape', jsonLink({ s: { version: 1, workers: 'many' } }), 'scenario.'],
  ['a newer link version', '#v=2&s=abc', 'made by a newer Lockscope'],
  ['a newer scenario version', jsonLink({ s: { ...base, version: 7 } }), 'scenario.version'],
  ['a __proto__ key', rawLink('{"p":"export-lease-expiry","__proto__":{"polluted":1}}'), 'unknown field "__proto__"'],
  ['a constructor key', jsonLink({ p: 'export-lease-expiry', constructor: { prototype: { polluted: 1 } } }), 'unknown field "constructor"'],
  ['NaN', rawLink('{"p":"export-lease-expiry","x":[{"kind":"pause","worker":"A","atMs":1,"pauseMs":NaN}]}'), 'not JSON'],
  ['null for a number', jsonLink(pause(null)), 'link.x[0].pauseMs'],
  ['a negative duration', jsonLink(pause(-5)), 'link.x[0].pauseMs'],
  ['Infinity', rawLink('{"p":"export-lease-expiry","x":[{"kind":"pause","worker":"A","atMs":1,"pauseMs":1e999}]}'), 'link.x[0].pauseMs'],
  ['a huge duration', jsonLink(pause(1e15)), 'must be at most 3600000 ms'],
  ['a huge horizon', jsonLink({ s: { ...base, horizonMs: 9e18 } }), 'scenario.horizonMs'],
  ['thousands of faults', jsonLink({ p: 'export-lease-expiry', x: Array.from({ length: 5000 }, () => ({ kind: 'expireLease', atMs: 1 })) }), 'link.x'],
  ['a hundred workers (limit 16)', jsonLink({ s: { ...base, workers: Array.from({ length: 100 }, (_, i) => ({ ...worker, id: `W${i}` })) } }), 'scenario.workers'],
  ['10⁶ workers', rawLink(`{"s":{"workers":[${'{"id":"W","startMs":0,"steps":[]},'.repeat(1_000_000)}{}]}}`), 'refused'],
  ['a decompression bomb', rawLink('a'.repeat(600_000)), 'over the limit'],
  ['a link over 8,000 characters', `#v=1&s=${'A'.repeat(9_000)}`, 'links over 8000 are refused'],
  ['a fault after the end of the run', jsonLink({ p: 'export-lease-expiry', x: [{ kind: 'expireLease', atMs: 3_000_000 }] }), 'scenario.faults[0].atMs'],
  ['an unknown preset', jsonLink({ p: '<script>alert(1)</script>' }), 'no preset'],
  ['an unknown worker', jsonLink({ p: 'export-lease-expiry', x: [{ kind: 'pause', worker: 'Z', atMs: 1, pauseMs: 5 }] }), 'scenario.faults[0].worker'],
];

test('hostile links: each gives a clear message, the default scenario stays usable, no console errors', async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  for (const [name, fragment, expected] of CASES) {
    await page.goto('about:blank');
    await page.goto(`/${fragment}`);
    const notice = page.getByTestId('notice');
    await expect(notice, name).toBeVisible();
    await expect(notice, name).toContainText(expected);
    await expect(page.getByTestId('verdict'), name).toContainText('Violated');
    // The app works: step the cursor, then dismiss the message.
    await page.getByRole('button', { name: 'Next: next event (→)' }).click();
    await expect(page.getByTestId('cursor-readout'), name).toContainText('event 1/');
    await notice.getByRole('button', { name: 'Dismiss this message' }).click();
    await expect(notice, name).toHaveCount(0);
    expect(await page.evaluate(() => (({}) as Record<string, unknown>).polluted), name).toBeUndefined();
  }
  expect(errors).toEqual([]);
});

test('markup and script in names and descriptions are shown as text, never run', async ({ page }) => {
  const errors = watchErrors(page);
  const title = '<img src=x onerror="window.__xss=1">Evil';
  const description = '<script>window.__xss=2</script><b>bold?</b>';
  await page.goto(`/${jsonLink({ s: { ...base, id: undefined, title, description } })}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(page.getByRole('region', { name: 'Situation' })).toContainText(description);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('img[src="x"], .situation b').count()).toBe(0);
  expect(errors).toEqual([]);
});

test('a run that hits the event limit is a message, and the app stays usable', async ({ page }) => {
  const errors = watchErrors(page);
  const s = {
    ...base, faults: [], horizonMs: 3_600_000, lease: { ...base.lease, retryEveryMs: 1, ttlMs: 3_600_000 },
    workers: [{ id: 'A', startMs: 0, steps: [{ do: 'acquire' }, { do: 'work', ms: 3_000_000 }, { do: 'release' }] }, { id: 'B', startMs: 10, steps: [{ do: 'acquire' }, { do: 'release' }] }],
  };
  await page.goto(`/${jsonLink({ s })}`);
  // A run cut short proves nothing: inconclusive, with where and why (issue 8).
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText('Inconclusive — cut short at 20000 events');
  await expect(page.getByRole('region', { name: 'Verdict' })).toContainText('The run reached the event limit (20000 events)');
  await page.keyboard.press('End');
  await expect(page.getByTestId('cursor-readout')).toContainText('event 20000/20000');
  expect(errors).toEqual([]);
});
