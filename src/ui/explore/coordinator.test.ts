import { describe, expect, it } from 'vitest';
import { findPreset } from '../../sim';
import { searchFaults, type Counterexample } from '../../sim/search/search';
import { exploreParallel, inlineRunner, runRange, type RangeJob, type RangeResult, type RangeRunner } from './coordinator';

const preset = (id: string) => findPreset(id)!;
let clock = 0;
const now = () => (clock += 5);

/** A runner that answers after `delayMs(job)` with the real range result, or with `fake(job)`. */
function fakeRunner(log: RangeJob[], opts: { delayMs?: (j: RangeJob) => number; fake?: (j: RangeJob) => RangeResult } = {}): RangeRunner & { stopped: boolean } {
  const r = {
    stopped: false,
    run(job: RangeJob) {
      log.push(job);
      return new Promise<RangeResult>((resolve) => setTimeout(() => { if (!r.stopped) resolve(opts.fake ? opts.fake(job) : runRange(job)); }, opts.delayMs?.(job) ?? 0));
    },
    stop() { r.stopped = true; },
  };
  return r;
}

describe('exploreParallel (the Web Worker coordinator)', () => {
  it('hands out contiguous ranges in ascending order from ordinal 0', async () => {
    const log: RangeJob[] = [];
    const s = preset('thumbnail').withoutFix;
    const h = exploreParallel(s, { maxFaults: 1, runners: [fakeRunner(log), fakeRunner(log), fakeRunner(log)], chunk: 7, now });
    const o = await h.outcome;
    expect(o.ranges[0]).toEqual({ from: 0, to: 7 });
    o.ranges.forEach((r, i) => { if (i > 0) expect(r.from).toBe(o.ranges[i - 1]!.to); });
    expect(log.map((j) => j.from)).toEqual(o.ranges.map((r) => r.from));
    expect(o.ranges.at(-1)!.to).toBe(o.total);
    expect(o.complete).toBe(true);
  });

  it('agrees with a single search: same counterexample (lowest ordinal), same tried and distinct when nothing breaks', async () => {
    for (const [id, variant] of [['inventory-reserve', 'with'], ['crash-after-effect', 'without']] as const) {
      const s = variant === 'with' ? preset(id).withFix : preset(id).withoutFix;
      const single = searchFaults(s, { maxFaults: 2 });
      const o = await exploreParallel(s, { maxFaults: 2, runners: [inlineRunner(), inlineRunner(), inlineRunner()], chunk: 4, now }).outcome;
      expect(o.counterexample?.ordinal).toBe(single.counterexample!.ordinal);
      expect(o.counterexample?.faults).toEqual(single.counterexample!.faults);
    }
    const s = preset('thumbnail').withoutFix;
    const single = searchFaults(s, { maxFaults: 1 });
    expect(single.counterexample).toBeNull();
    const o = await exploreParallel(s, { maxFaults: 1, runners: [inlineRunner(), inlineRunner()], chunk: 9, now }).outcome;
    expect(o.counterexample).toBeNull();
    expect([o.tried, o.distinct]).toEqual([single.tried, single.distinct]);
  });

  it('with keepOwnFaults, agrees with a single search that keeps them: the runners get the scenario with its faults and keep them', async () => {
    const s = preset('unsafe-release').withFix;
    const single = searchFaults(s, { maxFaults: 1, kinds: ['pause'], keepOwnFaults: true });
    const o = await exploreParallel(s, { maxFaults: 1, kinds: ['pause'], keepOwnFaults: true, runners: [inlineRunner(), inlineRunner()], chunk: 5, now }).outcome;
    expect(o.counterexample?.ordinal).toBe(single.counterexample!.ordinal);
    expect(o.counterexample?.scenario.faults).toEqual(single.counterexample!.scenario.faults);
    expect(o.counterexample?.own).toEqual(s.faults);
    expect(o.total).toBe(single.total);
  });

  it('keeps the lowest-ordinal counterexample when a later range answers first, and hands out nothing beyond it', async () => {
    const log: RangeJob[] = [];
    const ce = (ordinal: number): Counterexample => ({ scenario: preset('thumbnail').withoutFix, faults: [], own: [], violations: [], random: false, ordinal });
    // Ordinal 12 breaks (range [10,20)), and so does 3 (range [0,10)), which answers last.
    const fake = (j: RangeJob): RangeResult => ({ from: j.from, to: j.to, tried: j.to - j.from, inconclusive: 0, traceHashes: [`h${j.from}`], counterexample: j.from === 0 ? ce(3) : j.from === 10 ? ce(12) : null });
    const slowFirst = fakeRunner(log, { fake, delayMs: (j) => (j.from === 0 ? 30 : 1) });
    const other = fakeRunner(log, { fake, delayMs: () => 1 });
    const o = await exploreParallel(preset('thumbnail').withoutFix, { maxFaults: 2, runners: [slowFirst, other], chunk: 10, now }).outcome;
    expect(o.counterexample?.ordinal).toBe(3);
    // After ordinal 12 was found, no range starting at or beyond 12 went out.
    const afterFound = log.filter((j) => j.from >= 20);
    expect(afterFound).toEqual([]);
    expect(o.complete).toBe(true);
  });

  it('cancel settles at once with what was merged, stops every runner and hands out no more ranges', async () => {
    const log: RangeJob[] = [];
    const runners = [fakeRunner(log, { delayMs: () => 5 }), fakeRunner(log, { delayMs: () => 5 })];
    let progressed = 0;
    const h = exploreParallel(preset('export-lease-expiry').withFix, { maxFaults: 2, runners, chunk: 20, now, onProgress: (p) => {
      progressed += 1;
      expect(p.tried).toBeGreaterThan(0);
      expect(p.fraction).toBeGreaterThan(0);
      if (progressed === 2) h.cancel();
    } });
    const o = await h.outcome;
    const sent = log.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(o.cancelled).toBe(true);
    expect(o.complete).toBe(false);
    expect(o.tried).toBeGreaterThan(0);
    expect(o.tried).toBeLessThan(o.total);
    expect(runners.every((r) => r.stopped)).toBe(true);
    expect(log.length).toBe(sent);
  });

  it('a failing runner rejects the outcome and stops the others', async () => {
    const log: RangeJob[] = [];
    const ok = fakeRunner(log, { delayMs: () => 20 });
    const bad: RangeRunner = { run: () => Promise.reject(new Error('boom')), stop: () => {} };
    await expect(exploreParallel(preset('thumbnail').withoutFix, { maxFaults: 1, runners: [bad, ok], chunk: 5, now }).outcome).rejects.toThrow('boom');
    expect(ok.stopped).toBe(true);
  });
});

describe('exploreMatrix', () => {
  it('reports the cells in row order, one search per (mechanism, kind), and cancel ends it with every runner stopped', async () => {
    const { exploreMatrix, matrixRows } = await import('./matrix');
    const p = preset('export-lease-expiry');
    const rows = matrixRows(p.withoutFix, p).slice(0, 2);
    const cells: string[] = [];
    const done = await exploreMatrix(rows, ['pause', 'expireLease'], 1, [inlineRunner(), inlineRunner()], now, (c) => cells.push(`${c.row}|${c.kind}|${c.outcome.counterexample ? 'broken' : 'safe'}`)).done;
    expect(done.cancelled).toBe(false);
    expect(cells).toEqual(['without|pause|broken', 'without|expireLease|broken', 'with|pause|safe', 'with|expireLease|safe']);

    const log: RangeJob[] = [];
    const stuck = [fakeRunner(log, { delayMs: () => 10_000 }), fakeRunner(log, { delayMs: () => 10_000 })];
    const h = exploreMatrix(rows, ['pause'], 1, stuck, now, () => { throw new Error('no cell may end'); });
    await new Promise((r) => setTimeout(r, 5));
    h.cancel();
    expect((await h.done).cancelled).toBe(true);
    expect(stuck.every((r) => r.stopped)).toBe(true);
  });
});
