/**
 * Spreads one fault search (`searchFaults`, src/sim/search) over several runners — Web Workers in
 * the app (`./workerRunner.ts`), in-process ones in tests — and agrees with a single search.
 *
 * The coordinator hands out ordinal ranges of the search order in order (`chunk` schedules each,
 * a few hundred, so a worker returns to its message loop often), merges the trace hashes of every
 * range for the distinct count, keeps the counterexample with the lowest ordinal (the shortest and
 * earliest: the one a single search returns) and hands out no range beyond it. Cancel ends it at
 * once: the runners are told to stop (a Web Worker is terminated) and what was merged so far is
 * the outcome (`cancelled: true`). The clock is the caller's (`now`), for schedules/s and the time left.
 */
import { applicableKinds, searchBase, searchFaults, type Counterexample } from '../../sim/search/search';
import type { Scenario } from '../../sim';

/** One range of one search, as sent to a runner (structured-cloneable). */
export interface RangeJob {
  readonly scenario: Scenario;
  readonly maxFaults: number;
  readonly kinds: readonly string[];
  /** Keep the scenario's own faults in every schedule (`SearchOptions.keepOwnFaults`). */
  readonly keepOwnFaults?: boolean;
  /** Ordinals [from, to) of the search order (0: the fault-free run). */
  readonly from: number;
  readonly to: number;
}

/** What a runner returns for a range. */
export interface RangeResult {
  readonly from: number;
  readonly to: number;
  /** Schedules run in the range. */
  readonly tried: number;
  /** Schedules of the range cut short without a violation (`SearchResult.inconclusive`): they prove nothing. */
  readonly inconclusive: number;
  /** Distinct trace hashes of the range. */
  readonly traceHashes: readonly string[];
  /** The range's first breaking schedule (lowest ordinal in the range), if any. */
  readonly counterexample: Counterexample | null;
}

/** Something that runs ranges one at a time (a Web Worker, or an in-process stand-in). */
export interface RangeRunner {
  run(job: RangeJob): Promise<RangeResult>;
  /** Stops now (a Web Worker is terminated); a pending `run` never settles after this. */
  stop(): void;
}

/** Runs one range in this thread (the same call a Web Worker makes). */
export function runRange(job: RangeJob): RangeResult {
  const r = searchFaults(job.scenario, { maxFaults: job.maxFaults, kinds: job.kinds, keepOwnFaults: job.keepOwnFaults ?? false, range: { from: job.from, to: job.to }, returnHashes: true, maxRuns: Number.MAX_SAFE_INTEGER });
  return { from: job.from, to: job.to, tried: r.tried, inconclusive: r.inconclusive, traceHashes: r.traceHashes ?? [], counterexample: r.counterexample };
}

/** An in-process runner: each range runs after a macrotask (so the caller's loop turns between ranges). */
export function inlineRunner(): RangeRunner {
  let stopped = false;
  return {
    run: (job) => new Promise((resolve, reject) => {
      setTimeout(() => {
        if (stopped) return;
        try { resolve(runRange(job)); } catch (e) { reject(e instanceof Error ? e : new Error(String(e))); }
      }, 0);
    }),
    stop: () => { stopped = true; },
  };
}

/** Where a parallel search stands. */
export interface ExploreProgress {
  readonly tried: number;
  readonly distinct: number;
  /** Schedules the bound holds (an upper bound: schedules that clash are skipped). */
  readonly total: number;
  /** Fraction of the ordinals handed out and finished, 0–1. */
  readonly fraction: number;
  readonly elapsedMs: number;
  /** Schedules per second so far (0 until the first range returns). */
  readonly perSecond: number;
  /** Estimated time left (ms), null until it can be told. */
  readonly etaMs: number | null;
}

/** The outcome of a parallel search. */
export interface ExploreOutcome {
  readonly maxFaults: number;
  readonly kinds: readonly string[];
  readonly tried: number;
  readonly distinct: number;
  readonly total: number;
  readonly candidates: number;
  /** Schedules run that were cut short without a violation (summed over the ranges): they prove nothing. */
  readonly inconclusive: number;
  readonly elapsedMs: number;
  /** Every ordinal of the bound was run, or a counterexample with every lower ordinal run. */
  readonly complete: boolean;
  readonly cancelled: boolean;
  readonly counterexample: Counterexample | null;
  /** Ranges, in the order they were handed out (for tests: they go out in ascending order). */
  readonly ranges: readonly { readonly from: number; readonly to: number }[];
}

/** Options of `exploreParallel`. */
export interface ExploreOptions {
  readonly maxFaults: number;
  /** Fault kinds (default: those that apply to the scenario). */
  readonly kinds?: readonly string[];
  /** Keep the scenario's own faults in every schedule (`SearchOptions.keepOwnFaults`; default false). */
  readonly keepOwnFaults?: boolean;
  readonly runners: readonly RangeRunner[];
  /** Schedules per range (default 250). */
  readonly chunk?: number;
  /** Milliseconds from some origin (performance.now in the app). */
  readonly now: () => number;
  readonly onProgress?: (p: ExploreProgress) => void;
}

/** A running parallel search: its outcome, and a cancel that settles it at once. */
export interface ExploreHandle {
  readonly outcome: Promise<ExploreOutcome>;
  cancel(): void;
}

/**
 * The bound of a search without running it: the kinds, candidate count and schedule count (one
 * fault-free run in this thread, about a millisecond).
 */
export function boundOf(scenario: Scenario, maxFaults: number, kinds?: readonly string[], keepOwnFaults = false): { kinds: readonly string[]; candidates: number; total: number } {
  const r = searchFaults(scenario, { maxFaults, ...(kinds ? { kinds } : {}), keepOwnFaults, range: { from: 0, to: 0 } });
  return { kinds: r.kinds, candidates: r.candidates, total: r.total };
}

/** Starts a search spread over `options.runners` (see the module comment). */
export function exploreParallel(scenario: Scenario, options: ExploreOptions): ExploreHandle {
  const keepOwnFaults = options.keepOwnFaults ?? false;
  const base = searchBase(scenario, keepOwnFaults);
  const kinds = options.kinds ?? applicableKinds(base);
  const bound = boundOf(base, options.maxFaults, kinds, keepOwnFaults);
  const chunk = Math.max(1, options.chunk ?? 250);
  const start = options.now();
  const hashes = new Set<string>();
  const ranges: { from: number; to: number }[] = [];
  let tried = 0;
  let inconclusive = 0;
  let next = 0;
  let done = 0; // ordinals of finished ranges
  let inFlight = 0;
  let best: Counterexample | null = null;
  let settled = false;
  let resolve!: (o: ExploreOutcome) => void;
  let reject!: (e: Error) => void;
  const outcome = new Promise<ExploreOutcome>((res, rej) => { resolve = res; reject = rej; });
  const limit = () => Math.min(bound.total, best ? best.ordinal : Infinity);

  const finish = (cancelled: boolean) => {
    if (settled) return;
    settled = true;
    if (cancelled) for (const r of options.runners) r.stop();
    resolve({
      maxFaults: options.maxFaults, kinds, tried, distinct: hashes.size, total: bound.total, candidates: bound.candidates, inconclusive,
      elapsedMs: options.now() - start, complete: !cancelled, cancelled, counterexample: best, ranges,
    });
  };
  const progress = () => {
    if (!options.onProgress) return;
    const elapsedMs = options.now() - start;
    const perSecond = elapsedMs > 0 ? (tried * 1000) / elapsedMs : 0;
    const left = Math.max(0, limit() - done);
    options.onProgress({
      tried, distinct: hashes.size, total: bound.total, fraction: limit() > 0 ? Math.min(1, done / limit()) : 1,
      elapsedMs, perSecond, etaMs: done > 0 && elapsedMs > 0 ? (left * elapsedMs) / done : null,
    });
  };
  const feed = (runner: RangeRunner) => {
    if (settled) return;
    if (next >= limit()) {
      if (inFlight === 0) finish(false);
      return;
    }
    const from = next;
    const to = Math.min(next + chunk, bound.total);
    next = to;
    ranges.push({ from, to });
    inFlight += 1;
    runner.run({ scenario: base, maxFaults: options.maxFaults, kinds, keepOwnFaults, from, to }).then((r) => {
      if (settled) return;
      inFlight -= 1;
      tried += r.tried;
      inconclusive += r.inconclusive;
      done += r.to - r.from;
      for (const h of r.traceHashes) hashes.add(h);
      if (r.counterexample && (best === null || r.counterexample.ordinal < best.ordinal)) best = r.counterexample;
      progress();
      feed(runner);
    }, (e: unknown) => {
      if (settled) return;
      settled = true;
      for (const x of options.runners) x.stop();
      reject(e instanceof Error ? e : new Error(String(e)));
    });
  };
  if (options.runners.length === 0) throw new Error('exploreParallel needs at least one runner');
  for (const r of options.runners) feed(r);
  return { outcome, cancel: () => finish(true) };
}
