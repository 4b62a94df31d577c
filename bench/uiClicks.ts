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
import { mark } from './goals';

/** In every page: long tasks collected from the start, and `__afterClick(el, done)` timing a click to the next painted frame. */
const INIT = `
window.__longtasks = [];
try { new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longtasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true }); } catch {}
window.__verdictAt = null;
new MutationObserver(() => {
  if (window.__verdictAt === null && document.querySelector('[data-testid="verdict"]')?.textContent) window.__verdictAt = performance.now();
}).observe(document, { subtree: true, childList: true, characterData: true });
/**
 * Clicks el (a real DOM click: React's handlers run as for a user), resolves with ms from the click
 * to the frame that shows what changed under watch: at that frame's last rAF callback (this one,
 * requested after the click) style and layout are forced, and the time taken; the paint follows
 * at once in the same task (a trace showed Paint ~1 ms after). \`nextTask\`: the first task after
 * the frame, which also waits for every task queued before it (deferred renders, the link's write).
 */
window.__clickToPaint = (el, watch) => new Promise((resolve) => {
  const t0 = performance.now();
  let changed = false;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(watch, { subtree: true, childList: true, characterData: true, attributes: true });
  el.click();
  const frame = () => requestAnimationFrame(() => {
    void document.body.offsetHeight;
    const painted = performance.now() - t0;
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      if (changed) { mo.disconnect(); resolve({ ms: painted, nextTask: performance.now() - t0 }); } else frame();
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
async function measure(browser: Browser, url: string, clicks: number): Promise<{ load: number; loadLong: number; clickMs: number[]; nextTaskMs: number[]; afterEditLong: number; edit: number; editWhole: number; editLong: number; events: number }> {
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
  const nextTaskMs: number[] = [];
  let afterEditLong = 0;
  for (let k = 0; k < clicks; k++) {
    const r = await page.evaluate(async () => {
      const w = window as unknown as { __clickToPaint: (el: Element, watch: Element) => Promise<{ ms: number; nextTask: number }>; __longestAfter: (t: number) => number };
      // An enabled mechanism switch (a checkbox) when the preset has one (a switch that cannot change the run is disabled), else the "with / without the fix" radio not checked.
      const box = document.querySelector<HTMLInputElement>('.mechanism .switches input[type=checkbox]:not(:disabled)') ?? document.querySelector<HTMLInputElement>('.variant-toggle input[type=radio]:not(:checked)')!;
      const t = performance.now();
      const ms = await w.__clickToPaint(box, document.querySelector('.main-top')!);
      await new Promise((res) => setTimeout(res, 1050));
      return { ms, long: w.__longestAfter(t) };
    });
    clickMs.push(r.ms.ms);
    nextTaskMs.push(r.ms.nextTask);
    afterEditLong = Math.max(afterEditLong, r.long);
  }
  // Opening Edit: the tab clicked, timed to the frame that shows the form.
  const ed = await page.evaluate(async () => {
    const w = window as unknown as { __clickToPaint: (el: Element, watch: Element) => Promise<{ ms: number; nextTask: number }>; __longestAfter: (t: number) => number };
    const tab = [...document.querySelectorAll<HTMLButtonElement>('.tabs button')].find((b) => b.textContent === 'Edit')!;
    const t = performance.now();
    const ms = await w.__clickToPaint(tab, document.querySelector('.app')!);
    // The form's lower sections follow in a transition (ScenarioForm's useDeferredValue): the
    // frame that shows the whole form, down to its last section (Faults), timed from the click too.
    // (No named function here: tsx's keepNames would wrap it in a __name the page does not define.)
    for (;;) {
      await new Promise((res) => requestAnimationFrame(res));
      if ([...document.querySelectorAll('.editor-form legend')].some((l) => l.textContent?.startsWith('Faults'))) break;
    }
    void document.body.offsetHeight;
    const whole = performance.now() - t;
    await new Promise((res) => setTimeout(res, 1050));
    return { ms, whole, long: w.__longestAfter(t), form: document.querySelector('form') !== null };
  });
  await ctx.close();
  return { load, loadLong, clickMs, nextTaskMs, afterEditLong, edit: ed.ms.ms, editWhole: ed.whole, editLong: ed.long, events };
}

/** One row of the table: a preset (or the generated run) and its figures, ms. */
export interface ClickRow {
  readonly name: string;
  readonly events: number;
  readonly load: number;
  readonly loadLong: number;
  readonly clickMedian: number;
  readonly clickWorst: number;
  /** Median ms from the click to the first task after its frame (waits for the tasks queued before it too). */
  readonly nextTaskMedian: number;
  readonly afterEditLong: number;
  /** Click on the Edit tab → the frame that shows the form's first screen. */
  readonly edit: number;
  /** Click on the Edit tab → the frame that shows the whole form (its lower sections render in a transition). */
  readonly editWhole: number;
  readonly editLong: number;
}

/**
 * Measures and prints the table for each preset in `presets` and the generated run (when given), each figure
 * marked ✓ or ✗ against its goal; `base` serves the production build. Returns the rows.
 */
export async function benchClicks(browser: Browser, base: string, generated: Scenario | null, presets: readonly { id: string }[] = PRESETS): Promise<ClickRow[]> {
  console.log('As a user feels it: real clicks in the page (production build, 1280×800), ms; ✓/✗ against the goal');
  console.log(`${'preset'.padEnd(22)} ${'events'.padStart(6)}  ${'load→verdict'.padStart(14)} ${'longest task'.padStart(14)}  ${'click→repaint median'.padStart(22)} ${'worst'.padStart(9)}  ${'longest task ≤1 s after'.padStart(25)}  ${'open Edit'.padStart(10)} (longest task; the whole form)`);
  console.log(`${'goal'.padEnd(22)} ${''.padStart(6)}  ${'≤ 1000'.padStart(14)} ${'≤ 200'.padStart(14)}  ${'≤ 16'.padStart(22)} ${'≤ 33'.padStart(9)}  ${'≤ 50'.padStart(25)}  ${'≤ 100'.padStart(10)}`);
  const rows: [string, string][] = [...presets.map((p) => [p.id, `${base}/#/sim/${p.id}`] as [string, string]), ...(generated ? [['generated (10 workers)', `${base}/#${encodeShare({ s: generated })}`] as [string, string]] : [])];
  const out: ClickRow[] = [];
  const cell = (v: number, target: number, w: number) => `${f(v)} ${mark(v, target)}`.padStart(w);
  for (const [name, url] of rows) {
    const r = await measure(browser, url, 8);
    const row: ClickRow = { name, events: r.events, load: r.load, loadLong: r.loadLong, clickMedian: pct(r.clickMs, 50), clickWorst: Math.max(...r.clickMs), nextTaskMedian: pct(r.nextTaskMs, 50), afterEditLong: r.afterEditLong, edit: r.edit, editWhole: r.editWhole, editLong: r.editLong };
    out.push(row);
    console.log(`${name.padEnd(22)} ${String(r.events).padStart(6)}  ${cell(row.load, 1000, 14)} ${cell(row.loadLong, 200, 14)}  ${cell(row.clickMedian, 16, 22)} ${cell(row.clickWorst, 33, 9)}  ${cell(row.afterEditLong, 50, 25)}  ${cell(row.edit, 100, 10)} (${f(row.editLong)}; whole form ${f(row.editWhole)})  next task after the frame: median ${f(row.nextTaskMedian)}`);
  }
  console.log(`all: click→repaint median of medians ${f(pct(out.map((r) => r.clickMedian), 50))} ms, worst ${f(Math.max(...out.map((r) => r.clickWorst)))} ms\n`);
  return out;
}
