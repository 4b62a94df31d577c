import { test, expect, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jsonLink, lz, watchErrors } from './support';

/**
 * A blog post on another origin (its own little server on an ephemeral loopback port) carrying the
 * embed in an <iframe> of the given size. A real server, not `page.route`: Chromium's
 * local-network-access checks refuse a loopback frame inside a page they cannot place on the
 * local network, which a fulfilled route is.
 */
let blog: Server;
let blogOrigin = '';
const posts = new Map<string, string>();
test.beforeAll(async () => {
  blog = createServer((req, res) => {
    const body = posts.get(req.url ?? '');
    // The post's favicon: none (204), so the browser logs no 404 in the console the test watches.
    res.writeHead(body !== undefined ? 200 : req.url === '/favicon.ico' ? 204 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  await new Promise<void>((resolve) => blog.listen(0, '127.0.0.1', resolve));
  blogOrigin = `http://localhost:${(blog.address() as AddressInfo).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => blog.close(resolve));
});

async function blogPost(page: Page, src: string, widthPx: number, heightPx: number): Promise<void> {
  const path = `/post-${posts.size}.html`;
  posts.set(path, `<!doctype html><html lang="en"><head><title>A post</title></head><body><h1>Why leases are not locks</h1><iframe id="embed" src="${src}" width="${widthPx}" height="${heightPx}" title="Lockscope" style="border:0"></iframe></body></html>`);
  await page.goto(`${blogOrigin}${path}`);
}

const EMBED = jsonLink({ p: 'export-lease-expiry', e: 1 });

test('an embedded run in another site’s page: the verdict, the timeline and a working transport, and a link to the full view', async ({ page, baseURL, request }) => {
  // The servers let any page frame the app (browsers ignore frame-ancestors in a <meta> policy).
  const res = await request.get('/');
  expect(res.headers()['content-security-policy']).toBe('frame-ancestors *');
  const errors = watchErrors(page);
  await blogPost(page, `${baseURL}/${EMBED}`, 960, 540);
  const frame = page.frameLocator('#embed');
  await expect(frame.getByTestId('verdict')).toContainText('Violated');
  expect(await frame.locator('.lane-label').count()).toBeGreaterThan(2);
  expect(await frame.locator('.timeline-svg .content *').count()).toBeGreaterThan(10);
  // Only the timeline, the verdict and the transport: no tabs, no setup column, no share panel.
  await expect(frame.getByRole('navigation', { name: 'Views' })).toHaveCount(0);
  await expect(frame.getByRole('region', { name: 'Share and export' })).toHaveCount(0);
  const historyBefore = await page.evaluate(() => history.length);
  const readout = frame.getByTestId('cursor-readout');
  await expect(readout).toContainText('event 0/');
  await frame.getByRole('button', { name: 'Next: next event (→)' }).click();
  await frame.getByRole('button', { name: 'Next: next event (→)' }).click();
  await expect(readout).toContainText('event 2/');
  await frame.getByRole('button', { name: 'Go to the end (End)' }).click();
  await expect(readout).not.toContainText('event 2/');
  // "Open in Lockscope": the same run at the same cursor in the full view, in a new tab.
  const open = frame.getByRole('link', { name: /Open in Lockscope/ });
  await expect(open).toHaveAttribute('target', '_blank');
  await expect(open).toHaveAttribute('rel', /noopener/);
  const href = (await open.getAttribute('href'))!;
  expect(href.startsWith(`${baseURL}/#v=1&s=`)).toBe(true);
  const state = JSON.parse(lz.decompressFromEncodedURIComponent(new URLSearchParams(href.split('#')[1]).get('s')!)) as Record<string, unknown>;
  expect(state.p).toBe('export-lease-expiry');
  expect(state.e).toBeUndefined();
  expect(state.c).toBeGreaterThan(2);
  const [full] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
  await expect(full.getByTestId('verdict')).toContainText('Violated');
  await expect(full.getByRole('navigation', { name: 'Views' })).toBeVisible();
  // The page around the embed kept its one history entry (the embed only replaces its own address).
  expect(await page.evaluate(() => history.length)).toBe(historyBefore);
  expect(errors).toEqual([]);
});

for (const [w, h] of [[640, 360], [960, 540]] as const) {
  test(`the embed fills a ${w}×${h} frame without page scrollbars`, async ({ page, baseURL }) => {
    await blogPost(page, `${baseURL}/${EMBED}`, w, h);
    const frame = page.frameLocator('#embed');
    await expect(frame.getByTestId('verdict')).toContainText('Violated');
    await expect(frame.locator('.timeline-svg')).toBeVisible();
    const inner = page.frames().find((f) => f.url().startsWith(baseURL!))!;
    const box = await inner.evaluate(() => {
      const el = document.scrollingElement!;
      const svg = document.querySelector('.embed-timeline')!.getBoundingClientRect();
      const open = document.querySelector('.embed-open')!.getBoundingClientRect();
      const transport = document.querySelector('.transport')!.getBoundingClientRect();
      return { sh: el.scrollHeight, ch: el.clientHeight, sw: el.scrollWidth, cw: el.clientWidth, svgW: svg.width, svgTop: svg.top, openRight: open.right, transportBottom: transport.bottom, innerW: innerWidth, innerH: innerHeight };
    });
    expect(box.sh).toBeLessThanOrEqual(box.ch);
    expect(box.sw).toBeLessThanOrEqual(box.cw);
    expect(box.innerW).toBe(w);
    // The timeline's box spans the frame's width and starts inside it; the link and the transport are on screen.
    expect(box.svgW).toBeGreaterThan(w * 0.9);
    expect(box.svgTop).toBeLessThan(h);
    expect(box.openRight).toBeLessThanOrEqual(w);
    expect(box.transportBottom).toBeLessThanOrEqual(h);
  });
}

test('a framed page is always the embed view, even for a link made for the full app', async ({ page, baseURL }) => {
  await blogPost(page, `${baseURL}/#/sim/export-lease-expiry`, 960, 540);
  const frame = page.frameLocator('#embed');
  await expect(frame.getByTestId('embed')).toBeVisible();
  await expect(frame.getByTestId('verdict')).toContainText('Violated');
  await expect(frame.getByRole('navigation', { name: 'Views' })).toHaveCount(0);
});

test('axe: no serious or critical violations in the embed view', async ({ page }) => {
  await page.setViewportSize({ width: 960, height: 540 });
  await page.goto(`/${EMBED}`);
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  await page.keyboard.press('ArrowRight');
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.help} ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
});

test('the share panel offers the <iframe> snippet, and the snippet opens the same run as an embed', async ({ page, baseURL }) => {
  await page.goto('/#/sim/export-lease-expiry');
  await expect(page.getByTestId('verdict')).toContainText('Violated');
  // The author steps to event 1 (the Next button: a key pressed the instant the verdict shows could
  // land before the page's key listener, on a loaded CI machine) and the page shows it, then opens the snippet.
  await page.getByRole('button', { name: 'Next: next event (→)' }).click();
  await expect(page.getByTestId('cursor-readout')).toContainText('event 1/');
  await page.getByText('Embed in a page or slide').click();
  const code = await page.getByTestId('embed-code').inputValue();
  expect(code).toMatch(/^<iframe src="http:\/\/127\.0\.0\.1:\d+\/#v=1&amp;s=[^"]+" width="960" height="540" title="Lockscope: Nightly export[^"]*" style="border:0" loading="lazy" referrerpolicy="no-referrer"><\/iframe>$/);
  // Pasted into a post, it shows the embed at the cursor the author had.
  const src = code.match(/src="([^"]+)"/)![1]!.replace(/&amp;/g, '&');
  expect(src.startsWith(`${baseURL}/`)).toBe(true);
  await blogPost(page, src, 960, 540);
  const frame = page.frameLocator('#embed');
  await expect(frame.getByTestId('verdict')).toContainText('Violated');
  await expect(frame.getByTestId('cursor-readout')).toContainText('event 1/');
});
