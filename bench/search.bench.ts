/**
 * Part of `npm run bench`: the fault search ("Break my design", issue 11). Prints
 * - schedules/s of the search spread by the app's coordinator (src/ui/explore/coordinator.ts) over
 *   one worker thread and over one per core (Node `worker_threads` running the same `runRange` a
 *   browser Web Worker runs), on export-lease-expiry with the fix (no counterexample: every schedule
 *   of ≤ 2 faults runs);
 * - for every preset (without and with the fix), the time a single thread takes to finish the
 *   ≤ 2-fault search (up to its first counterexample, or every schedule when none breaks it), in Node.
 * Target (issue 11): every preset ≤ 2 s. Figures, not assertions.
 */
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { PRESETS, findPreset } from '../src/sim';
import { searchFaults } from '../src/sim/search/search';
import { exploreParallel, type RangeJob, type RangeResult, type RangeRunner } from '../src/ui/explore/coordinator';

/**
 * A range runner over a Node worker thread. `npm run bench` runs this script bundled by esbuild
 * (as the browser build is: no `keepNames` helpers in the hot paths, which cost tsx ~20 %), beside
 * the bundled worker `searchWorker.node.mjs`; run from source with tsx, it loads the worker through tsx.
 */
function threadRunner(): RangeRunner {
  const bundled = import.meta.url.endsWith('.mjs');
  const file = new URL(bundled ? './searchWorker.node.mjs' : './searchWorker.node.ts', import.meta.url).href;
  const w = bundled
    ? new Worker(new URL(file))
    : new Worker(`import('tsx/esm/api').then((t) => t.tsImport(${JSON.stringify(file)}, ${JSON.stringify(import.meta.url)}))`, { eval: true });
  let serial = 0;
  const pending = new Map<number, (r: RangeResult) => void>();
  w.on('message', (m: { id: number; result: RangeResult }) => { pending.get(m.id)?.(m.result); pending.delete(m.id); });
  return {
    run: (job: RangeJob) => new Promise((resolve) => { const id = ++serial; pending.set(id, resolve); w.postMessage({ id, job }); }),
    stop: () => { void w.terminate(); },
  };
}

async function perSecond(threads: number): Promise<{ rate: number; tried: number; ms: number }> {
  const s = findPreset('export-lease-expiry')!.withFix;
  const runners = Array.from({ length: threads }, () => threadRunner());
  // Warm each thread up (module load, JIT) on a small search first.
  await exploreParallel(s, { maxFaults: 1, runners, now: () => performance.now() }).outcome;
  const o = await exploreParallel(s, { maxFaults: 2, runners, now: () => performance.now() }).outcome;
  for (const r of runners) r.stop();
  return { rate: (o.tried * 1000) / o.elapsedMs, tried: o.tried, ms: o.elapsedMs };
}

async function main(): Promise<void> {
  const cores = availableParallelism();
  console.log(`\nFault search (≤ 2 faults), Node ${process.version}, ${cores} cores`);
  const one = await perSecond(1);
  const all = await perSecond(cores);
  console.log(`schedules/s, export-lease-expiry with the fix (${one.tried} schedules): 1 worker thread ${one.rate.toFixed(0)}/s (${one.ms.toFixed(0)} ms); ${cores} worker threads ${all.rate.toFixed(0)}/s (${all.ms.toFixed(0)} ms), ×${(all.rate / one.rate).toFixed(2)}`);
  console.log(`\ntime to finish the ≤ 2-fault search, one thread (Node):`);
  console.log(`${'preset'.padEnd(22)} ${'variant'.padEnd(8)} ${'ms'.padStart(7)} ${'tried'.padStart(7)} ${'distinct'.padStart(8)}  result`);
  let worst = 0;
  for (const p of PRESETS) {
    for (const [name, s] of [['without', p.withoutFix], ['with', p.withFix]] as const) {
      const t0 = performance.now();
      const r = searchFaults(s, { maxFaults: 2, maxRuns: Number.MAX_SAFE_INTEGER });
      const ms = performance.now() - t0;
      worst = Math.max(worst, ms);
      const what = r.counterexample ? `broken with ${r.counterexample.faults.length} fault(s) (schedule #${r.counterexample.ordinal})` : 'no violation';
      console.log(`${p.id.padEnd(22)} ${name.padEnd(8)} ${ms.toFixed(0).padStart(7)} ${String(r.tried).padStart(7)} ${String(r.distinct).padStart(8)}  ${what}`);
    }
  }
  console.log(`slowest: ${worst.toFixed(0)} ms (target ≤ 2,000 ms)`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
