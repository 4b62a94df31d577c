/**
 * "Break my design": a search over fault schedules for one scenario (issue 11).
 *
 * Given a scenario (its own faults set aside: they are one schedule among many; or, with
 * `keepOwnFaults`, kept in every schedule, which then adds up to `maxFaults` more), the search tries
 * every placement of up to `maxFaults` faults of the kinds that apply to the scenario (the fault
 * registry's `appliesTo`), at the moments where a fault can matter — each worker's step boundaries
 * (worker faults: pause, crash, job error, partition), and for faults placed in time, the instants
 * around lease grants and expiries, around each effect and at each step start of a fault-free run —
 * and returns the first schedule whose run violates an invariant. Schedules are tried in order of
 * fewest faults, then earliest (their times compared in order), so the first counterexample is a
 * shortest one. What lies beyond the run budget is sampled by a seeded random search (the seed is
 * in the result).
 *
 * Pure and deterministic: the same scenario, options and seed give the same result, in Node and in
 * a Web Worker. Time budgets are the caller's (`shouldStop`), so the core reads no clock; a search
 * stopped that way says so (`complete: false`).
 */
import { runScenario, type RunResult } from '../engine/run';
import { Rng } from '../engine/rng';
import { faultKindOf, faultKinds, generateFault, type FaultBase } from '../faults/registry';
import type { Finding } from '../invariants';
import type { Fault, Scenario } from '../scenario/schema';
import { LIMITS } from '../scenario/primitives';

/** One fault the search may place: the fault and the virtual time it is expected to fire at in a fault-free run (for ordering). */
export interface Candidate {
  readonly fault: Fault;
  /** Expected firing time (ms) in the fault-free run; `Infinity` for a step the worker never reached there. */
  readonly atMs: number;
}

/** Options of a search. */
export interface SearchOptions {
  /** At most this many faults per schedule (1–3; default 2). */
  readonly maxFaults?: number;
  /**
   * Keep the scenario's own faults in every schedule: the search then tries the scenario as it is
   * (ordinal 0), then with up to `maxFaults` faults added. "Check my design" grades this way: the
   * faults the interviewer wrote into the prompt always happen, and the allowed ones come on top.
   * Default false: the own faults are set aside (`withoutFaults`).
   */
  readonly keepOwnFaults?: boolean;
  /** Fault kinds to use (default: every registered kind that applies to the scenario). */
  readonly kinds?: readonly string[];
  /** Upper bound on simulations run (deterministic budget; default 20,000). */
  readonly maxRuns?: number;
  /** Random schedules to sample after the exhaustive part when it did not cover the bound (default 0). */
  readonly randomRuns?: number;
  /** Seed of the random part (default 1). */
  readonly seed?: number;
  /** Asked between simulations: true ends the search now (a time budget, a cancel button). */
  readonly shouldStop?: () => boolean;
  /**
   * Only the schedules whose ordinal (their place in the search order; 0 is the fault-free run) is
   * in [from, to): a caller that spreads one search over several Web Workers hands out ranges in
   * order and keeps the counterexample with the lowest ordinal (the same one a single search finds).
   * No random part runs in a range search.
   */
  readonly range?: { readonly from: number; readonly to: number };
  /** Return the distinct trace hashes seen (`SearchResult.traceHashes`), so ranges can be merged. */
  readonly returnHashes?: boolean;
  /** Hears progress every `progressEvery` runs (default 200). */
  readonly onProgress?: (p: SearchProgress) => void;
  readonly progressEvery?: number;
}

/** Where a search stands. */
export interface SearchProgress {
  /** Schedules run so far. */
  readonly tried: number;
  /** Distinct traces among them (schedules that gave the same trace count once). */
  readonly distinct: number;
  /** Schedules the exhaustive part holds for this bound (all sizes up to `maxFaults`). */
  readonly total: number;
}

/** A schedule that breaks the scenario: the scenario with its faults placed, and what broke. */
export interface Counterexample {
  /** The scenario with exactly the schedule's faults: `own` then `faults`. */
  readonly scenario: Scenario;
  /** The faults the search placed (with `keepOwnFaults`, those added to the scenario's own). */
  readonly faults: readonly Fault[];
  /** The scenario's own faults, kept in every schedule (`keepOwnFaults`); empty otherwise. */
  readonly own: readonly Fault[];
  /** The violations of its run (the first one is what stopped it). */
  readonly violations: readonly Finding[];
  /** Found by the random part (else by the exhaustive one). */
  readonly random: boolean;
  /** Its place in the search order (0: the fault-free run); -1 for a random one. */
  readonly ordinal: number;
}

/** The result of a search. */
export interface SearchResult {
  readonly maxFaults: number;
  readonly kinds: readonly string[];
  /** Schedules run (the fault-free run included). */
  readonly tried: number;
  readonly distinct: number;
  /** Candidate single faults (the building blocks of the schedules). */
  readonly candidates: number;
  /**
   * Schedules run whose run was cut short without a violation (the horizon came while a worker was
   * still at its job, or the event limit): they prove nothing, so "no violation" holds only for the
   * other `tried − inconclusive`. The horizon of each schedule grows by its delays (`delayOfMs`),
   * so this is 0 for every preset.
   */
  readonly inconclusive: number;
  /** Schedules the exhaustive part holds for this bound. */
  readonly total: number;
  /** True when every schedule of the bound was run (or a counterexample ended the search). */
  readonly complete: boolean;
  /** Random schedules run, and the seed they were drawn from. */
  readonly randomTried: number;
  readonly seed: number;
  /** The first (shortest, earliest) breaking schedule, if any. */
  readonly counterexample: Counterexample | null;
  /** Why it stopped before covering the bound: the run budget, or `shouldStop`. */
  readonly stoppedBy?: 'maxRuns' | 'shouldStop';
  /** With `returnHashes`: the distinct trace hashes of the schedules run. */
  readonly traceHashes?: readonly string[];
}

/** Base scenario of a search: the scenario without its own faults. */
export function withoutFaults(scenario: Scenario): Scenario {
  return { ...scenario, faults: [] };
}

/** Base scenario of a search with these options: the scenario as it is with `keepOwnFaults`, else without its faults. */
export function searchBase(scenario: Scenario, keepOwnFaults = false): Scenario {
  return keepOwnFaults ? scenario : withoutFaults(scenario);
}

/** Kinds that apply to the scenario (fault registry `appliesTo`), in registry order. */
export function applicableKinds(scenario: Scenario): string[] {
  return faultKinds().filter((k) => k.appliesTo(scenario)).map((k) => k.kind);
}

const WORKER_KINDS = new Set(['pause', 'crash', 'jobError', 'partition']);

/**
 * The time a pause or a cut-off must outlive to matter (ms): the lease TTL when a worker takes a
 * lease, the visibility timeout with an SQS queue, else the longer of the fault-free run's length
 * and the longest wait a `boundedWait` invariant allows (a scenario with neither lease nor queue, a
 * SQL race, has no timeout to outlive: what a pause can do there is hold a row lock, a transaction
 * or a connection while the others run, so it must outlast their work, or the bound on their wait).
 */
export function timeThatMattersMs(scenario: Scenario, base: RunResult): number {
  const leased = scenario.mechanism.lock === 'lease' && scenario.workers.some((w) => w.steps.some((x) => x.do === 'acquire'));
  if (leased) return scenario.lease.ttlMs;
  if (scenario.queue?.kind === 'sqs') return scenario.queue.visibilityTimeoutMs;
  const bounds = scenario.invariants.flatMap((i) => (i.kind === 'boundedWait' ? [i.maxWaitMs] : []));
  return Math.max(1, base.endMs, ...bounds);
}

/**
 * The durations a fault of each kind is tried with, from `timeThatMattersMs` (T): a pause or a
 * cut-off that outlives it (T + 1 s) and one half as long; a crash with a restart after 1 s and one
 * without; a clock jump past it.
 */
function durationsFor(kind: string, scenario: Scenario, base: RunResult): Record<string, number | null>[] {
  const t = timeThatMattersMs(scenario, base);
  const long = Math.min(t + 1_000, LIMITS.maxDurationMs);
  const half = Math.max(1, Math.round(t / 2));
  switch (kind) {
    case 'pause': return [{ pauseMs: long }, { pauseMs: half }];
    case 'partition': return [{ durationMs: long }];
    case 'crash': return [{ restartAfterMs: 1_000 }, { restartAfterMs: null }];
    case 'clockJump': return [{ jumpMs: long }];
    default: return [{}];
  }
}

/**
 * How much longer than the scenario's horizon a schedule's run goes (ms): each fault's `runDelayMs`
 * (fault registry) summed — the pauses and cut-offs
 * it places, and for each crash its restart delay plus `afterCrashMs` (the caller's: the time that
 * matters — the crashed worker's lease or visibility timeout outlives it, and whoever waits for it
 * waits that long — plus the fault-free run's length, as a restarted worker runs its job again), so
 * that every worker they delay still gets to run its remaining steps: a run cut at the horizon
 * while a worker is still at its job proves nothing either way.
 */
export function delayOfMs(faults: readonly Fault[], afterCrashMs: number): number {
  let ms = 0;
  for (const f of faults) ms += faultKindOf(f).runDelayMs?.(f, afterCrashMs) ?? 0;
  return ms;
}

/**
 * `design` with `faults` as its schedule, as the search runs it: its horizon lengthened by the
 * schedule's delays (`delayOfMs`, crashes costing `timeThatMattersMs` plus the fault-free run's
 * length), capped at LIMITS.maxHorizonMs. Every view that shows a schedule on a design (a lesson's
 * "Show", an interview follow-up, a vote's counterfactual) builds it here, so what it shows is what
 * the search judged. `freeRun`: the fault-free run of `design` (run here when not given).
 */
export function withSchedule(design: Scenario, faults: readonly Fault[], freeRun?: RunResult): Scenario {
  const free = freeRun ?? runScenario(withoutFaults(design), { text: false });
  const extraMs = delayOfMs(faults, timeThatMattersMs(design, free) + free.endMs);
  return { ...design, faults: [...faults], ...(extraMs > 0 ? { horizonMs: Math.min(LIMITS.maxHorizonMs, design.horizonMs + extraMs) } : {}) };
}

/**
 * The moments a fault placed in time is tried at, from the fault-free run: 0, just after each
 * lease grant (not renewals: a renewal moves the expiry, it hands nothing over), just before a
 * grant's TTL runs out unless its holder renewed first, just before a key's expiry, just before and
 * after each effect, and each step start. Sorted, distinct, within the horizon.
 */
export function momentsOf(base: RunResult): number[] {
  const out = new Set<number>([0]);
  const ttl = base.scenario.lease.ttlMs;
  for (const e of base.events) {
    const d = e.data;
    if (!d) continue;
    if (d.t === 'lease' && (d.op === 'acquired' || d.op === 'fenced')) {
      out.add(e.atMs + 1);
      // Just before the grant's TTL would run out, unless the holder renewed before then.
      const renewedBefore = base.events.some((x) => x.atMs > e.atMs && x.atMs < e.atMs + ttl && x.data?.t === 'lease' && x.data.op === 'renewed' && x.data.worker === d.worker);
      if (!renewedBefore) out.add(e.atMs + ttl - 1);
    } else if (d.t === 'lease' && d.op === 'expired') {
      out.add(Math.max(0, e.atMs - 1));
    } else if (d.t === 'write' && d.phase === 'begin') {
      out.add(Math.max(0, e.atMs - 1));
      out.add(e.atMs + 1);
    } else if (d.t === 'step') {
      out.add(e.atMs);
    }
  }
  return [...out].filter((t) => t <= base.scenario.horizonMs).sort((a, b) => a - b);
}

/**
 * Every single fault the search may place, ordered by expected firing time (then kind, worker,
 * step and phase as the registry lists them). Worker faults go at each step boundary of each
 * worker (before each step, and after the last); other faults at `momentsOf`.
 */
export function candidatesFor(scenario: Scenario, kinds: readonly string[], base: RunResult): Candidate[] {
  const out: Candidate[] = [];
  const moments = momentsOf(base);
  for (const kind of kinds) {
    for (const extra of durationsFor(kind, scenario, base)) {
      if (WORKER_KINDS.has(kind)) {
        for (const w of scenario.workers) {
          w.steps.forEach((_s, i) => {
            // After step i is the moment before step i + 1: only the last step is tried after.
            for (const phase of i === w.steps.length - 1 ? (['before', 'after'] as const) : (['before'] as const)) {
              const reached = base.stepReachedMs[w.id]?.[i] ?? null;
              const atMs = reached === null ? Infinity : phase === 'before' ? reached : base.endMs;
              out.push({ fault: { kind, worker: w.id, step: i, phase, ...extra } as Fault, atMs });
            }
          });
        }
      } else {
        for (const atMs of moments) out.push({ fault: { kind, atMs, ...extra } as Fault, atMs });
      }
    }
  }
  const kindOrder = new Map(kinds.map((k, i) => [k, i] as const));
  return out
    .map((c, i) => ({ c, i }))
    .sort((a, b) => a.c.atMs - b.c.atMs || (kindOrder.get(a.c.fault.kind) ?? 0) - (kindOrder.get(b.c.fault.kind) ?? 0) || a.i - b.i)
    .map((x) => x.c);
}

/** Two faults that cannot go in one schedule: the same fault twice, or two faults at one worker's same step and phase. */
function clashes(fa: FaultBase, fb: FaultBase): boolean {
  if (fa.step !== undefined && fb.step !== undefined) return fa.worker === fb.worker && fa.step === fb.step && fa.phase === fb.phase;
  return fa.kind === fb.kind && fa.atMs === fb.atMs;
}

function clash(a: Candidate, b: Candidate): boolean {
  return clashes(a.fault as FaultBase, b.fault as FaultBase);
}

/** Index tuples of every schedule of exactly `size` candidates, earliest first (times compared in order). */
function* schedulesOfSize(cands: readonly Candidate[], size: number): Generator<number[]> {
  // Candidates are sorted by time, so increasing index tuples in lexicographic order are
  // earliest-first: tuples are compared by their first fault's time, then the second's.
  const idx = Array.from({ length: size }, (_v, i) => i);
  const n = cands.length;
  if (size > n) return;
  for (;;) {
    let ok = true;
    for (let a = 0; a < size && ok; a++) for (let b = a + 1; b < size && ok; b++) if (clash(cands[idx[a]!]!, cands[idx[b]!]!)) ok = false;
    if (ok) yield [...idx];
    let i = size - 1;
    while (i >= 0 && idx[i] === n - size + i) i--;
    if (i < 0) return;
    idx[i]! += 1;
    for (let j = i + 1; j < size; j++) idx[j] = idx[j - 1]! + 1;
  }
}

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 0; i < k; i++) r = (r * (n - i)) / (i + 1);
  return Math.round(r);
}

/**
 * Searches the fault schedules of `scenario` (see the module comment). Never throws for a valid
 * scenario; a schedule whose run stops at the event limit is not a counterexample.
 */
export function searchFaults(scenario: Scenario, options: SearchOptions = {}): SearchResult {
  const maxFaults = Math.max(1, Math.min(3, options.maxFaults ?? 2));
  const base = searchBase(scenario, options.keepOwnFaults);
  const own: readonly Fault[] = base.faults;
  const kinds = (options.kinds ?? applicableKinds(base)).filter((k) => faultKinds().some((d) => d.kind === k));
  const maxRuns = options.maxRuns ?? 20_000;
  const seed = options.seed ?? 1;
  const every = options.progressEvery ?? 200;
  const hashes = new Set<string>();
  let tried = 0;
  let inconclusive = 0;

  const baseRun = runScenario(base, { text: false });
  // With the own faults kept, a candidate that would clash with one of them is not a new schedule.
  // The schedule's horizon is sized from the fault-free run (withSchedule), own faults kept or not.
  const freeRun = own.length === 0 ? baseRun : runScenario(withoutFaults(base), { text: false });
  const cands = candidatesFor(base, kinds, baseRun).filter((c) => !own.some((f) => clashes(c.fault as FaultBase, f as FaultBase)));
  const total = 1 + Array.from({ length: maxFaults }, (_v, k) => choose(cands.length, k + 1)).reduce((a, b) => a + b, 0);

  const from = options.range?.from ?? 0;
  const to = options.range?.to ?? Infinity;
  const run = (faults: readonly Fault[], random: boolean, ordinal: number): Counterexample | null => {
    const s: Scenario = withSchedule(base, [...own, ...faults], freeRun);
    const r = faults.length === 0 ? baseRun : runScenario(s, { text: false, stopAtFirstViolation: true });
    tried += 1;
    if (r.verdict.status === 'inconclusive') inconclusive += 1;
    hashes.add(r.traceHash);
    if (options.onProgress && tried % every === 0) options.onProgress({ tried, distinct: hashes.size, total });
    return r.verdict.violations.length > 0 && r.error === undefined ? { scenario: s, faults, own, violations: r.verdict.violations, random, ordinal } : null;
  };
  const result = (counterexample: Counterexample | null, complete: boolean, randomTried: number, stoppedBy?: 'maxRuns' | 'shouldStop'): SearchResult => ({
    maxFaults, kinds, tried, distinct: hashes.size, candidates: cands.length, inconclusive, total, complete, randomTried, seed, counterexample, ...(stoppedBy ? { stoppedBy } : {}),
    ...(options.returnHashes ? { traceHashes: [...hashes] } : {}),
  });

  if (from === 0 && to > 0) {
    const none = run([], false, 0);
    if (none) return result(none, true, 0);
  }
  let stoppedBy: 'maxRuns' | 'shouldStop' | undefined;
  let ordinal = 0;
  exhaustive: for (let size = 1; size <= maxFaults; size++) {
    for (const tuple of schedulesOfSize(cands, size)) {
      ordinal += 1;
      if (ordinal < from) continue;
      if (ordinal >= to) break exhaustive;
      if (tried >= maxRuns) { stoppedBy = 'maxRuns'; break exhaustive; }
      if (options.shouldStop?.()) { stoppedBy = 'shouldStop'; break exhaustive; }
      const found = run(tuple.map((i) => cands[i]!.fault), false, ordinal);
      if (found) return result(found, true, 0);
    }
  }
  if (stoppedBy === undefined || options.range) return result(null, stoppedBy === undefined, 0, stoppedBy);

  // Beyond the budget of the exhaustive part: random schedules of up to maxFaults faults.
  const rng = new Rng(seed);
  let randomTried = 0;
  for (; randomTried < (options.randomRuns ?? 0); randomTried++) {
    if (options.shouldStop?.()) break;
    const size = rng.int(1, maxFaults);
    const faults: Fault[] = [];
    for (let i = 0; i < size; i++) {
      const pick = cands.length > 0 && rng.int(0, 1) === 0 ? cands[rng.int(0, cands.length - 1)]!.fault : (generateFault(rng, base) as Fault);
      if (kinds.includes(pick.kind)) faults.push(pick);
    }
    if (faults.length === 0) continue;
    const found = run(faults, true, -1);
    if (found) return result(found, false, randomTried + 1, stoppedBy);
  }
  return result(null, false, randomTried, stoppedBy);
}
