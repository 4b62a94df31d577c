import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { watchErrors } from './support';

/**
 * After load the app requests nothing but its own build's code-split files (src/ui/lazyViews.ts:
 * GET of a script or stylesheet under /assets/ of its own origin, from the service worker's cache
 * after the first visit): no request elsewhere, no other path, no other method.
 */
const OWN_CHUNK = /^GET http:\/\/127\.0\.0\.1:\d+\/assets\/[\w.-]+\.(js|css)$/;

test('no network requests after load but its own chunks: open a preset, edit, copy the link, export', async ({ browser }) => {
  const ctx = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await ctx.newPage();
  const errors = watchErrors(page);
  const after: string[] = [];
  let loaded = false;
  page.on('load', () => { loaded = true; });
  page.on('request', (r) => {
    const u = r.url();
    if (!loaded || u.startsWith('blob:') || u.startsWith('data:')) return;
    const req = `${r.method()} ${u}`;
    if (!OWN_CHUNK.test(req)) after.push(req);
  });
  await page.goto('/');
  await page.waitForLoadState('load');
  expect(loaded).toBe(true);

  const card = page.locator('li.preset', { has: page.getByRole('heading', { name: /Nightly export/ }) });
  await card.getByRole('link', { name: 'Open without the fix' }).click();
  await page.getByLabel('Fencing token (checked by the destination)').check();
  await page.getByRole('button', { name: 'Copy link' }).click();
  await expect(page.getByTestId('share-link')).toBeVisible();
  for (const name of ['Export JSON', 'Timeline SVG', 'Timeline PNG']) {
    const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
    expect(readFileSync(await d.path()).length).toBeGreaterThan(100);
  }
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  await page.getByLabel('Seed').fill('99');
  await page.getByLabel('Scenario JSON').fill('{ broken');
  await expect(page.getByTestId('json-problems')).toContainText('Not valid JSON');
  await page.getByRole('button', { name: 'Compare', exact: true }).click();
  await page.goBack();
  await page.goBack();
  await page.getByRole('button', { name: 'Catalogue', exact: true }).click();
  await page.waitForTimeout(300);
  expect(after).toEqual([]);
  expect(errors).toEqual([]);
  await ctx.close();
});

test('the Content-Security-Policy forbids inline scripts and eval', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') violations.push(m.text()); });
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toBeVisible();
  const csp = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
  expect(csp).toContain("connect-src 'none'");
  expect(csp).toContain("worker-src 'self'");
  expect(csp).toContain("style-src 'self';");
  const ran = await page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inline = 1';
    document.body.append(s);
    const d = document.createElement('script');
    d.src = 'data:text/javascript,window.__data=1';
    document.body.append(d);
    const a = document.createElement('a');
    a.setAttribute('onclick', 'window.__handler=1');
    document.body.append(a);
    a.click();
    await new Promise((r) => setTimeout(r, 100));
    const w = window as unknown as Record<string, number | undefined>;
    return { inline: w.__inline === 1, data: w.__data === 1, handler: w.__handler === 1 };
  });
  // (eval is refused by the policy having no 'unsafe-eval'; Playwright's own evaluation is exempt from CSP, so it cannot probe eval here.)
  expect(ran).toEqual({ inline: false, data: false, handler: false });
  expect(violations.some((v) => v.includes('Content Security Policy'))).toBe(true);
});
