/**
 * Speed as a user feels it (bench/ui.bench.ts runs it): real clicks dispatched in the page on the
 * production build — no store calls — timed from the click to the frame that shows the result,
 * with the browser's long tasks (PerformanceObserver 'longtask') around them. Per preset: load →
 * verdict (and the longest task meanwhile), click a mechanism switch → verdict repainted (median,
 * worst), the longest task in the second after an edit, opening Edit. The same edit on a generated
 * ~2,000-event run shows whether a long run costs more than a short one (the windowed event log).
 */
import type { Browser } from '@playwright/test';
import { PRESETS, type Scenario } from '../src/sim';
import { encodeShare } from '../src/share/link';

/** In every page: long tasks collected from the start, and `__afterClick(el, done)` timing a click to the next painted frame. */
const INIT = `
window.__longtasks = [];
try { new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true }); } catch {}
window.__verdictAt = null;
new MutationObserver(() => {
  if (window.__verdictAt === null && document.querySelector('[data-testid="verdict"]')?.textContent) window.__verdictAt = performance.now();
}).observe(document, { subtree: true, childList: true, characterData: true });
/** Clicks el (a real DOM click: React's handlers run as for a user), resolves with ms from the click to the end of the frame that paints what changed under watch. */
window.__clickToPaint = (el, watch) => new Promise((resolve) => {
  const t0 = performance.now();
  let changed = false;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(watch, { subtree: true, childList: true, characterData: true, attributes: true });
  el.click();
  const frame = () => requestAnimationFrame(() => {
    // After this frame's rAF callbacks the browser paints; a message posted now runs right after.
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      if (changed) { mo.disconnect(); resolve(performance.now() - t0); } else frame();
    };
    ch.port2.postMessage(0);
  });
  frame();
});
/** The longest long task (ms) that started within [from, from + 1000]. */
window.__longestAfter = (from) => Math.max(0, ...window.__longtasks.filter(([s]) => s >= from - 5 && s <= from + 1000).map(([, d]) => d));
`;

const f = (n: number) => n.toFixed(1).padStart(6);
const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))] ?? 0;

/** One run of the measurements for a page at `url` (a simulator link). */
async function measure(browser: Browser, url: string, clicks: number): Promise<{ load: number; loadLong: number; clickMs: number[]; afterEditLong: number; edit: number; editLong: number; events: number }> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await ctx.addInitScript(INIT);
  const page = await ctx.newPage();
  await page.goto(url);
  await page.getByTestId('verdict').waitFor();
  await page.waitForTimeout(1200); // let the deferred panels and the link write finish
  const load = await page.evaluate(() => (window as unknown as { __verdictAt: number }).__verdictAt);
  const loadLong = await page.evaluate(() => Math.max(0, ...(window as unknown as { __longtasks: [number, number][] }).__longtasks.filter(([s]) => s < (window as unknown as { __verdictAt: number }).__verdictAt + 200).map(([, d]) => d)));
  const events = Number((await page.getByTestId('cursor-readout').textContent())?.match(/\/(\d+)/)?.[1] ?? 0);
  // A mechanism switch clicked on and off (or the variant radio).
  const clickMs: number[] = [];
  let afterEditLong = 0;
  for (let k = 0; k < clicks; k++) {
    const r = await page.evaluate(async () => {
      const w = window as unknown as { __clickToPaint: (el: Element, watch: Element) => Promise<number>; __longestAfter: (t: number) => number };
      // An enabled mechanism switch (a checkbox) when the preset has one (a switch that cannot change the run is disabled), else the "with / without the fix" radio not checked.
      const box = document.querySelector<HTMLInputElement>('.mechanism .switches input[type=checkbox]:not(:disabled)') ?? document.querySelector<HTMLInputElement>('.variant-toggle input[type=radio]:not(:checked)')!;
      const t = performance.now();
      const ms = await w.__clickToPaint(box, document.querySelector('.main-top')!);
      await new Promise((res) => setTimeout(res, 1050));
      return { ms, long: w.__longestAfter(t) };
    });
    clickMs.push(r.ms);
    afterEditLong = Math.max(afterEditLong, r.long);
  }
  // Opening Edit: the tab clicked, timed to the frame that shows the form.
  const ed = await page.evaluate(async () => {
    const w = window as unknown as { __clickToPaint: (el: Element, watch: Element) => Promise<number>; __longestAfter: (t: number) => number };
    const tab = [...document.querySelectorAll<HTMLButtonElement>('.tabs button')].find((b) => b.textContent === 'Edit')!;
    const t = performance.now();
    const ms = await w.__clickToPaint(tab, document.querySelector('.app')!);
    await new Promise((res) => setTimeout(res, 1050));
    return { ms, long: w.__longestAfter(t), form: document.querySelector('form') !== null };
  });
  await ctx.close();
  return { load, loadLong, clickMs, afterEditLong, edit: ed.ms, editLong: ed.long, events };
}

/** Prints the table for every preset and the generated run; `base` serves the production build. */
export async function benchClicks(browser: Browser, base: string, generated: Scenario): Promise<void> {
  console.log('As a user feels it: real clicks in the page (production build, 1280×800), ms');
  console.log(`${'preset'.padEnd(22)} ${'events'.padStart(6)}  load→verdict (longest task)  click→repaint median  worst  longest task ≤1 s after  open Edit (longest task)`);
  const meds: number[] = [];
  const worst: number[] = [];
  const rows: [string, string][] = [...PRESETS.map((p) => [p.id, `${base}/#/sim/${p.id}`] as [string, string]), ['generated (10 workers)', `${base}/#${encodeShare({ s: generated })}`]];
  for (const [name, url] of rows) {
    const r = await measure(browser, url, 8);
    meds.push(pct(r.clickMs, 50));
    worst.push(Math.max(...r.clickMs));
    console.log(`${name.padEnd(22)} ${String(r.events).padStart(6)}  ${f(r.load)} (${f(r.loadLong)})              ${f(pct(r.clickMs, 50))}  ${f(Math.max(...r.clickMs))}  ${f(r.afterEditLong)}                   ${f(r.edit)} (${f(r.editLong)})`);
  }
  console.log(`all: click→repaint median of medians ${f(pct(meds, 50))} ms, worst ${f(Math.max(...worst))} ms (goals ≤ 16 / ≤ 33 ms; long tasks ≤ 50 ms after an edit; Edit ≤ 100 ms; load ≤ 1 s, no task > 200 ms)\n`);
}
