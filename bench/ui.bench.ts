/**
 * UI speed benchmark against the production build (`npm run bench:ui` builds first). Prints:
 *  - for every preset, the time from a fault edit to the verdict repainted (re-run + React commit
 *    + d3 timeline redraw + layout), target ≤ 16 ms;
 *  - the work per scrub step and the frame intervals while scrubbing a generated 10-worker,
 *    ~2,000-event run, target p95 ≤ 20 ms;
 *  - the initial JS size, gzip, target ≤ 300 kB;
 *  - speed as a user feels it (./uiClicks.ts): real clicks in the page, click → repaint, long
 *    tasks after an edit, opening Edit, load → verdict, for every preset and a ~2,000-event run;
 *  - the fault search in Chromium (./uiSearch.ts): schedules/s with one Web Worker and one per
 *    core, and the time to the ≤ 2-fault report for every preset.
 * and ends with a table of the goals (./goals.ts): target, measured, met or not, next to the
 * load average of the machine (the figures are wall-clock: a busy machine slows them).
 * It prints figures; it is not a timed test. Uses Debian Chromium at /usr/bin/chromium.
 * Environment: `BENCH_PORT` (preview server port), `BENCH_ONLY` (comma-separated sections:
 * `edit`, `scrub`, `clicks`, `search`, `size`; default all), `BENCH_PRESETS` (comma-separated
 * preset ids; default every preset).
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { PRESETS } from '../src/sim';
import { generatedScenario } from './uiScenario';
import { benchClicks } from './uiClicks';
import { benchSearch } from './uiSearch';
import { goalTable, worstOf, type GoalRow } from './goals';

const PORT = Number(process.env.BENCH_PORT ?? 4175);
const ROOT = new URL('..', import.meta.url).pathname;
const SECTIONS = new Set((process.env.BENCH_ONLY ?? 'edit,scrub,clicks,search,size').split(',').map((x) => x.trim()));
const ONLY_PRESETS = process.env.BENCH_PRESETS?.split(',').map((x) => x.trim()).filter(Boolean);
const BENCH_PRESETS = ONLY_PRESETS ? PRESETS.filter((p) => ONLY_PRESETS.includes(p.id)) : PRESETS;
if (ONLY_PRESETS && BENCH_PRESETS.length !== ONLY_PRESETS.length) throw new Error(`BENCH_PRESETS: unknown preset id in ${ONLY_PRESETS.join(', ')}`);
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
}
const f = (n: number) => n.toFixed(2).padStart(7);

function jsGzipKb(): { files: string[]; kb: number } {
  const html = readFileSync(join(ROOT, 'dist/index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const files = refs.length > 0 ? refs : readdirSync(join(ROOT, 'dist/assets')).filter((n) => n.endsWith('.js')).map((n) => `assets/${n}`);
  const bytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(ROOT, 'dist', file)), { level: 9 }).length, 0);
  return { files, kb: bytes / 1024 };
}

async function waitForServer(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`preview server did not start at ${url}`);
}

async function main(): Promise<void> {
  const loadBefore = load();
  console.log(`Load average (1, 5, 15 min) at the start: ${loadBefore} on ${availableParallelism()} cores\n`);
  const goals: GoalRow[] = [];
  const server = spawn(join(ROOT, 'node_modules/.bin/vite'), ['preview', '--port', String(PORT), '--strictPort', '--host', '127.0.0.1'], { cwd: ROOT, stdio: 'ignore' });
  const base = `http://127.0.0.1:${PORT}`;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  try {
    await waitForServer(base);
    const page = await browser.newPage({ viewport: { width: 1920, height: 1080 } });
    await page.goto(`${base}/?bench#/sim/export-lease-expiry`);
    await page.getByTestId('verdict').waitFor();

    // Helpers in the page. `__edit(fn)` applies a store edit the way a click handler does (a sync
    // React update: render, commit and effects, including the d3 redraw, run before flushSync
    // returns), then forces style and layout: what must happen before the frame can be painted.
    await page.evaluate('window.__name = (f) => f');
    await page.evaluate(() => {
      const w = window as unknown as Record<string, unknown> & { __flushSync: (fn: () => void) => void };
      w.__edit = (fn: () => void) => {
        w.__flushSync(fn);
        void document.body.offsetHeight;
      };
      w.__settle = () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    });

    if (SECTIONS.has('edit')) {
    console.log('Fault edit → verdict repainted (re-run + render + timeline redraw + layout), ms; first edit, then 8 more per preset');
    console.log(`${'preset'.padEnd(22)}   first  median     max  events  verdict after`);
    const all: number[] = [];
    const cold: number[] = [];
    for (const p of BENCH_PRESETS) {
      const times = await page.evaluate(async ({ id, worker, horizon }) => {
        type Store = { getState(): Record<string, (...a: unknown[]) => unknown> & { faults: unknown[]; error: string | null } };
        const w = window as unknown as { __lockscope: Store; __settle: () => Promise<void>; __edit: (fn: () => void) => void };
        const st = w.__lockscope.getState();
        st.loadPreset!(id, 'without');
        st.setView!('simulate');
        await w.__settle();
        await new Promise((r) => requestAnimationFrame(r));
        const out: number[] = [];
        let refused = 0;
        for (let k = 0; k < 9; k++) {
          const t0 = performance.now();
          // A fresh fault each time (a new scenario → a real re-run, not a cache hit), inside the
          // preset's horizon so that the edit is valid and really re-runs.
          w.__edit(() => w.__lockscope.getState().addFault!({ kind: 'pause', worker, atMs: Math.round(horizon * (0.04 + k * 0.07)), pauseMs: Math.round(horizon * (0.08 + k * 0.02)) }));
          out.push(performance.now() - t0);
          if (w.__lockscope.getState().error) refused += 1;
          await w.__settle();
        }
        const verdict = document.querySelector('[data-testid="verdict"]')?.textContent ?? '';
        const events = document.querySelector('[data-testid="cursor-readout"]')?.textContent?.match(/\/(\d+)/)?.[1] ?? '?';
        return { out: out.slice(1), cold: out[0]!, verdict, events, refused };
      }, { id: p.id, worker: p.withoutFix.workers[0]!.id, horizon: p.withoutFix.horizonMs });
      if (times.refused > 0) console.log(`  (${p.id}: ${times.refused} of 9 edits were refused as invalid, not re-run)`);
      all.push(...times.out);
      cold.push(times.cold);
      console.log(`${p.id.padEnd(22)} ${f(times.cold)} ${f(pct(times.out, 50))} ${f(Math.max(...times.out))} ${times.events.padStart(7)}  ${times.verdict.slice(0, 40)}`);
    }
    console.log(`all presets, after the first edit: median ${f(pct(all, 50))} ms, p95 ${f(pct(all, 95))} ms, max ${f(Math.max(...all))} ms (target ≤ 16 ms)`);
    console.log(`first edit after loading a preset (cold code paths): median ${f(pct(cold, 50))} ms, max ${f(Math.max(...cold))} ms\n`);
    goals.push({ goal: 'fault edit (store call) → verdict repainted, median', target: 16, unit: 'ms', value: pct(all, 50), detail: `all presets after the first edit; p95 ${pct(all, 95).toFixed(1)} ms` });
    }

    // Scrubbing a generated 10-worker run.
    const scenario = generatedScenario();
    if (SECTIONS.has('scrub')) {
    const scrub = await page.evaluate(async (sc) => {
      type Store = { getState(): Record<string, (...a: unknown[]) => unknown>; setState(p: unknown): void };
      const w = window as unknown as { __lockscope: Store; __settle: () => Promise<void>; __edit: (fn: () => void) => void };
      w.__lockscope.setState({ faults: (sc as { faults: unknown[] }).faults });
      const t0 = performance.now();
      w.__edit(() => w.__lockscope.getState().setScenario!(sc, 'bench'));
      const firstRun = performance.now() - t0;
      await w.__settle();
      const events = Number(document.querySelector('[data-testid="cursor-readout"]')?.textContent?.match(/\/(\d+)/)?.[1] ?? 0);
      const end = (sc as { horizonMs: number }).horizonMs;
      // 1) Work per scrub step: set the cursor, let React and d3 update, force layout.
      const steps: number[] = [];
      for (let i = 0; i <= 300; i++) {
        const ms = ((i * 7919) % 301) / 300 * end * 0.8;
        const s0 = performance.now();
        w.__edit(() => w.__lockscope.getState().setCursorMs!(ms));
        steps.push(performance.now() - s0);
        if (i % 10 === 0) await w.__settle();
      }
      // 2) Frame intervals while scrubbing one step per animation frame (a continuous drag).
      const frames: number[] = [];
      await new Promise<void>((resolve) => {
        let i = 0;
        let last = performance.now();
        const tick = (now: number) => {
          frames.push(now - last);
          last = now;
          w.__edit(() => w.__lockscope.getState().setCursorMs!((i / 240) * end * 0.8));
          i += 1;
          if (i < 240) requestAnimationFrame(tick);
          else resolve();
        };
        requestAnimationFrame(tick);
      });
      return { firstRun, events, steps, frames: frames.slice(1) };
    }, scenario);
    console.log(`Scrubbing a generated run: ${scenario.workers.length} workers, ${scrub.events} events (first load incl. simulation ${scrub.firstRun.toFixed(1)} ms)`);
    console.log(`  work per scrub step: median ${f(pct(scrub.steps, 50))} ms, p95 ${f(pct(scrub.steps, 95))} ms, max ${f(Math.max(...scrub.steps))} ms`);
    console.log(`  frame interval while scrubbing every frame: median ${f(pct(scrub.frames, 50))} ms, p95 ${f(pct(scrub.frames, 95))} ms, max ${f(Math.max(...scrub.frames))} ms (target p95 ≤ 20 ms)\n`);
    goals.push({ goal: 'scrubbing a ~2,000-event run: frame interval p95', target: 20, unit: 'ms', value: pct(scrub.frames, 95), detail: `${scrub.events} events, ${scenario.workers.length} workers` });
    }

    if (SECTIONS.has('clicks')) {
      const rows = await benchClicks(browser, base, scenario, BENCH_PRESETS);
      const by = (k: 'load' | 'loadLong' | 'clickMedian' | 'clickWorst' | 'afterEditLong' | 'edit') => rows.map((r) => ({ name: r.name, value: r[k] }));
      goals.push(
        worstOf('click → verdict repainted, median (each preset)', 16, 'ms', by('clickMedian')),
        worstOf('click → verdict repainted, worst click (each preset)', 33, 'ms', by('clickWorst')),
        worstOf('longest task in the 1 s after an edit', 50, 'ms', by('afterEditLong')),
        worstOf('opening Edit (click → the form\'s first screen painted)', 100, 'ms', by('edit')),
        worstOf('load → verdict', 1000, 'ms', by('load')),
        worstOf('longest task during the load', 200, 'ms', by('loadLong')),
      );
    }

    if (SECTIONS.has('search')) {
      const times = await benchSearch(browser, base, BENCH_PRESETS);
      goals.push(worstOf('fault search, ≤ 2 faults: time to the report (each preset variant)', 2000, 'ms', times));
    }

    if (SECTIONS.has('size')) {
      const size = jsGzipKb();
      console.log(`Initial JS (gzip -9): ${size.kb.toFixed(1)} kB in ${size.files.join(', ')} (target ≤ 300 kB)\n`);
      goals.push({ goal: 'initial JS (entry + its static imports), gzip -9', target: 300, unit: 'kB', value: size.kb, detail: `${size.files.length} files` });
    }

    console.log(`Goals (load average at the start ${loadBefore}, at the end ${load()}, ${availableParallelism()} cores)`);
    console.log(goalTable(goals));
  } finally {
    await browser.close();
    if (server.pid !== undefined) server.kill('SIGTERM');
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
