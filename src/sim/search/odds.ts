/**
 * "How often?" — the odds of a violation under the pauses a team really sees (issue 11, "The odds").
 *
 * The exhaustive search (search.ts) answers "can it break"; this module answers "how often". The
 * user gives the p50 and p99 of their observed GC or stall pauses; a log-normal is fitted to them
 * (`fitLogNormal`). For each lease TTL of a list, `R` seeded runs of the scenario are made; in each
 * run every worker, independently:
 * - pauses once with probability `pauseProbability` (per worker per job), before a step drawn
 *   uniformly among its steps, for a length drawn from the log-normal (rounded to whole ms,
 *   clamped to 1 ms … `LIMITS.maxDurationMs`);
 * - crashes with probability `crashRate` (per worker per job), before a step drawn uniformly, and
 *   restarts after `restartAfterMs`.
 * The scenario's own faults are set aside (they are one schedule; these runs draw their own), and
 * each run's horizon grows by the pauses and restart delays drawn, so a late worker still gets to
 * act (capped at `LIMITS.maxHorizonMs`). A run counts as a violation when its verdict has one
 * (`runScenario(s, { text: false, stopAtFirstViolation: true })`). Per TTL: runs, violations, P and
 * a 95% Wilson score interval (`wilson`).
 *
 * Common random numbers: run `i` draws the same pauses and crashes at every TTL (its generator is
 * seeded from `seed` and `i` only), so a difference between two TTLs comes from the TTL, not from
 * the draws, and the curve is as smooth as R allows.
 *
 * The heat map (TTL × pause length → P) asks "if a pause of this length happens, how often does it
 * break?": in each of a cell's runs one worker, drawn uniformly, pauses for exactly the cell's
 * length before a step drawn uniformly (the other workers do not pause); crashes are drawn as above.
 *
 * Pure and deterministic (no clock; every draw from the seeded Rng): the same scenario, inputs and seed give the
 * same result, in Node and in a Web Worker. Cancelling is the caller's (`shouldStop`).
 */
import { fmtTime } from '../engine/fmt';
import { runScenario } from '../engine/run';
import { Rng } from '../engine/rng';
import type { Fault, Scenario } from '../scenario/schema';
import { LIMITS } from '../scenario/primitives';

/** z for a two-sided 95% interval: the 97.5th percentile of the standard normal. */
export const Z95 = 1.959963984540054;
/** z of the 99th percentile of the standard normal (used to fit sigma from p50 and p99). */
export const Z99 = 2.3263478740408408;

/** Parameters of a log-normal in natural-log space: ln X ~ Normal(mu, sigma²). */
export interface LogNormal {
  readonly mu: number;
  readonly sigma: number;
}

/**
 * The log-normal whose median is `p50Ms` and whose 99th percentile is `p99Ms`:
 * mu = ln p50, sigma = (ln p99 − ln p50) / z₀.₉₉ (z₀.₉₉ ≈ 2.3263).
 * @throws RangeError unless 0 < p50Ms ≤ p99Ms (finite).
 */
export function fitLogNormal(p50Ms: number, p99Ms: number): LogNormal {
  if (!(Number.isFinite(p50Ms) && Number.isFinite(p99Ms) && p50Ms > 0 && p99Ms >= p50Ms)) {
    throw new RangeError(`need 0 < p50 ≤ p99, got p50 ${fmtTime(p50Ms)}, p99 ${fmtTime(p99Ms)}`);
  }
  return { mu: Math.log(p50Ms), sigma: (Math.log(p99Ms) - Math.log(p50Ms)) / Z99 };
}

/** A uniform draw in the open interval (0, 1), 2³⁰ steps, from the seeded generator. */
export function uniform01(rng: Rng): number {
  return (rng.int(0, 0x3fffffff) + 0.5) / 0x40000000;
}

/** A standard normal draw (Box–Muller, one of the pair), from the seeded generator. */
export function standardNormal(rng: Rng): number {
  const u1 = uniform01(rng);
  const u2 = uniform01(rng);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** One log-normal draw in ms: exp(mu + sigma·Z), not rounded. */
export function drawLogNormal(rng: Rng, d: LogNormal): number {
  return Math.exp(d.mu + d.sigma * standardNormal(rng));
}

/** A 95% (by default) confidence interval for a proportion. */
export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * The Wilson score interval for `successes` out of `n` trials (Wilson 1927): centre
 * (p̂ + z²/2n) / (1 + z²/n), half-width z/(1 + z²/n) · √(p̂(1−p̂)/n + z²/4n²). Unlike p̂ ± z·√(p̂(1−p̂)/n)
 * it stays inside [0, 1] and is not empty at 0 or n successes. n = 0 gives [0, 1].
 */
export function wilson(successes: number, n: number, z = Z95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0 or n successes the bound is exactly 0 or 1 (float rounding would leave 1e-17 off).
  return { low: successes <= 0 ? 0 : Math.max(0, centre - half), high: successes >= n ? 1 : Math.min(1, centre + half) };
}

/** What an odds computation is asked. */
export interface OddsInput {
  /** Median of the observed pauses (ms, > 0). */
  readonly pauseP50Ms: number;
  /** 99th percentile of the observed pauses (ms, ≥ p50). */
  readonly pauseP99Ms: number;
  /** Probability that a worker pauses (once) during its job, 0 … 1. */
  readonly pauseProbability: number;
  /** Probability that a worker crashes (once) during its job, 0 … 1. */
  readonly crashRate: number;
  /** A crashed worker restarts its job after this long (ms). */
  readonly restartAfterMs: number;
  /** The lease TTLs to try (ms, each 1 … LIMITS.maxDurationMs). */
  readonly ttlsMs: readonly number[];
  /** Seeded runs per TTL (the line chart). */
  readonly runsPerTtl: number;
  /** Seed of every draw (a 32-bit integer). */
  readonly seed: number;
  /** Pause lengths of the heat map's columns (ms); empty or absent: no heat map. */
  readonly heatPausesMs?: readonly number[];
  /** Seeded runs per heat-map cell (default: runsPerTtl). */
  readonly heatRuns?: number;
}

/** P(violation) at one TTL. */
export interface OddsPoint {
  readonly ttlMs: number;
  readonly runs: number;
  readonly violations: number;
  /** violations / runs (0 when no run was made). */
  readonly p: number;
  /** 95% Wilson interval of p. */
  readonly low: number;
  readonly high: number;
}

/** P(violation | one pause of `pauseMs`) at one TTL. */
export interface HeatCell {
  readonly ttlMs: number;
  readonly pauseMs: number;
  readonly runs: number;
  readonly violations: number;
  readonly p: number;
}

/** Where a computation stands (runs made of the total). */
export interface OddsProgress {
  readonly done: number;
  readonly total: number;
}

/** Options of `computeOdds` (none changes the result, except that stopping leaves it partial). */
export interface OddsOptions {
  /** Hears progress every `progressEvery` runs (default 100) and at the end. */
  readonly onProgress?: (p: OddsProgress) => void;
  readonly progressEvery?: number;
  /** Asked between runs: true ends the computation now (`complete: false`). */
  readonly shouldStop?: () => boolean;
}

/** The result: the curve, the heat map, the fitted distribution. */
export interface OddsResult {
  readonly fit: LogNormal;
  readonly points: readonly OddsPoint[];
  /** Row-major: for each TTL of `ttlsMs`, each pause of `heatPausesMs`. */
  readonly heat: readonly HeatCell[];
  /** False when `shouldStop` ended it (what was finished is kept; unfinished points have fewer runs). */
  readonly complete: boolean;
  readonly totalRuns: number;
}

/** Why the odds do not apply to a scenario, or null when they do (they are about a lease's TTL). */
export function oddsNotApplicable(scenario: Scenario): string | null {
  return scenario.mechanism.lock === 'lease'
    ? null
    : `The odds vary the lease TTL, and this scenario takes no lease (its coordination is "${scenario.mechanism.lock}"). Switch the mechanism to a Redis lease to ask how often pauses break it.`;
}

/**
 * Checks the inputs; returns the problems as sentences (empty when the inputs are usable).
 */
export function validateOddsInput(input: OddsInput): string[] {
  const errs: string[] = [];
  const { pauseP50Ms: p50, pauseP99Ms: p99 } = input;
  if (!(Number.isFinite(p50) && p50 > 0)) errs.push('p50 must be a positive duration');
  if (!(Number.isFinite(p99) && p99 >= p50)) errs.push('p99 must be at least p50');
  for (const [name, v] of [['pause probability', input.pauseProbability], ['crash rate', input.crashRate]] as const) {
    if (!(Number.isFinite(v) && v >= 0 && v <= 1)) errs.push(`${name} must be between 0 and 1`);
  }
  if (!(Number.isInteger(input.restartAfterMs) && input.restartAfterMs >= 0 && input.restartAfterMs <= LIMITS.maxDurationMs)) errs.push('restart delay must be a whole number of ms, 0 … 1 h');
  if (input.ttlsMs.length === 0 || input.ttlsMs.length > 40) errs.push('give 1 to 40 TTLs');
  if (input.ttlsMs.some((t) => !(Number.isInteger(t) && t >= 1 && t <= LIMITS.maxDurationMs))) errs.push('each TTL must be a whole number of ms, 1 ms … 1 h');
  if ((input.heatPausesMs ?? []).length > 40) errs.push('give at most 40 heat-map pause lengths');
  if ((input.heatPausesMs ?? []).some((t) => !(Number.isInteger(t) && t >= 1 && t <= LIMITS.maxDurationMs))) errs.push('each heat-map pause must be a whole number of ms, 1 ms … 1 h');
  for (const [name, v] of [['runs per TTL', input.runsPerTtl], ['runs per cell', input.heatRuns ?? input.runsPerTtl]] as const) {
    if (!(Number.isInteger(v) && v >= 1 && v <= 100_000)) errs.push(`${name} must be a whole number, 1 … 100,000`);
  }
  if (!Number.isInteger(input.seed)) errs.push('seed must be a whole number');
  return errs;
}

/** The generator of run `i` of a stream (`stream` keeps the curve's and the heat map's draws apart). */
function runRng(seed: number, stream: number, i: number): Rng {
  // Mix seed, stream and index into one 32-bit seed (xoroshiro128+ spreads it further).
  let h = Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return new Rng(h ^ (h >>> 16));
}

/** The faults of one run and how much longer its horizon needs to be. */
export interface Draw {
  readonly faults: Fault[];
  /** How much longer than the scenario's horizon the run goes (the pauses and restart delays drawn). */
  readonly extraMs: number;
  /** No length was drawn from the log-normal: the draw comes from a small set, worth remembering. */
  readonly discrete: boolean;
}

function clampMs(ms: number): number {
  return Math.min(LIMITS.maxDurationMs, Math.max(1, Math.round(ms)));
}

/**
 * The draws of one run, in a fixed order per worker (pause?, its step and length; crash?, its
 * step). `fixedPause`: the heat map's — one worker (drawn) pauses for exactly that long.
 */
function drawRun(scenario: Scenario, input: OddsInput, fit: LogNormal, rng: Rng, fixedPause?: number): Draw {
  const faults: Fault[] = [];
  let extraMs = 0;
  let discrete = true;
  const pausing = fixedPause === undefined ? -1 : rng.int(0, scenario.workers.length - 1);
  scenario.workers.forEach((w, wi) => {
    const last = w.steps.length - 1;
    if (fixedPause === undefined) {
      if (uniform01(rng) < input.pauseProbability) {
        const step = rng.int(0, last);
        const pauseMs = clampMs(drawLogNormal(rng, fit));
        faults.push({ kind: 'pause', worker: w.id, step, phase: 'before', pauseMs } as Fault);
        extraMs += pauseMs;
        discrete = false;
      }
    } else if (wi === pausing) {
      const step = rng.int(0, last);
      faults.push({ kind: 'pause', worker: w.id, step, phase: 'before', pauseMs: fixedPause } as Fault);
      extraMs += fixedPause;
    }
    if (uniform01(rng) < input.crashRate) {
      const step = rng.int(0, last);
      faults.push({ kind: 'crash', worker: w.id, step, phase: 'before', restartAfterMs: input.restartAfterMs } as Fault);
      extraMs += input.restartAfterMs;
    }
  });
  return { faults, extraMs, discrete };
}

/** The faults drawn for run `i` of the line chart (the same at every TTL), as `computeOdds` runs them. */
export function oddsRunDraw(scenario: Scenario, input: OddsInput, i: number): Draw {
  return drawRun(scenario, input, fitLogNormal(input.pauseP50Ms, input.pauseP99Ms), runRng(input.seed, 0, i));
}

/** The scenario of one odds run: the draw's faults, the TTL, the horizon lengthened by the draw. */
export function oddsRunScenario(scenario: Scenario, ttlMs: number, d: Draw): Scenario {
  return {
    ...scenario,
    horizonMs: Math.min(LIMITS.maxHorizonMs, scenario.horizonMs + d.extraMs),
    lease: { ...scenario.lease, ttlMs },
    faults: d.faults,
  };
}

/** One run of the scenario with these faults at this TTL: did it violate an invariant? */
function violates(scenario: Scenario, ttlMs: number, d: Draw): boolean {
  return runScenario(oddsRunScenario(scenario, ttlMs, d), { text: false, stopAtFirstViolation: true }).verdict.violations.length > 0;
}

/**
 * `violates`, remembered per TTL and draw for discrete draws (no log-normal length: those are
 * almost never drawn twice): a run is a pure function of its scenario, so two runs that drew the
 * same faults (often none: with a pause probability of 0.3 and two workers, half the runs; a
 * heat-map cell has at most workers × steps distinct pauses) give the same answer and only the
 * first is simulated. At most `MEMO_MAX` answers are kept. Changes no count, only the time.
 */
function memoViolates(scenario: Scenario): (ttlMs: number, d: Draw) => boolean {
  const seen = new Map<string, boolean>();
  return (ttlMs, d) => {
    if (!d.discrete) return violates(scenario, ttlMs, d);
    const key = `${ttlMs}|${d.extraMs}|${JSON.stringify(d.faults)}`;
    let v = seen.get(key);
    if (v === undefined) {
      v = violates(scenario, ttlMs, d);
      if (seen.size < MEMO_MAX) seen.set(key, v);
    }
    return v;
  };
}
const MEMO_MAX = 20_000;

/**
 * Runs the odds (see the module comment): `runsPerTtl` runs per TTL, then `heatRuns` runs per
 * heat-map cell. Deterministic for its inputs.
 * @throws RangeError when `validateOddsInput` finds a problem (its sentences joined).
 */
export function computeOdds(scenario: Scenario, input: OddsInput, options: OddsOptions = {}): OddsResult {
  const errs = validateOddsInput(input);
  if (errs.length > 0) throw new RangeError(errs.join('; '));
  const fit = fitLogNormal(input.pauseP50Ms, input.pauseP99Ms);
  const heatPauses = input.heatPausesMs ?? [];
  const heatRuns = input.heatRuns ?? input.runsPerTtl;
  const total = input.ttlsMs.length * (input.runsPerTtl + heatPauses.length * heatRuns);
  const every = Math.max(1, options.progressEvery ?? 100);
  let done = 0;
  let stopped = false;
  const tick = (): boolean => {
    done += 1;
    if (options.onProgress && done % every === 0) options.onProgress({ done, total });
    if (options.shouldStop?.()) stopped = true;
    return stopped;
  };

  const run = memoViolates(scenario);
  // The draws of run i do not depend on the TTL (common random numbers): draw once, reuse.
  const draws: Draw[] = [];
  const drawOf = (i: number): Draw => (draws[i] ??= drawRun(scenario, input, fit, runRng(input.seed, 0, i)));

  const points: OddsPoint[] = [];
  for (const ttlMs of input.ttlsMs) {
    let runs = 0;
    let violations = 0;
    for (let i = 0; i < input.runsPerTtl && !stopped; i++) {
      if (run(ttlMs, drawOf(i))) violations += 1;
      runs += 1;
      tick();
    }
    const ci = wilson(violations, runs);
    points.push({ ttlMs, runs, violations, p: runs ? violations / runs : 0, low: ci.low, high: ci.high });
  }

  const heat: HeatCell[] = [];
  for (const ttlMs of input.ttlsMs) {
    heatPauses.forEach((pauseMs, pi) => {
      let runs = 0;
      let violations = 0;
      for (let i = 0; i < heatRuns && !stopped; i++) {
        // Stream 1 + column: each column its own draws, the same at every TTL.
        if (run(ttlMs, drawRun(scenario, input, fit, runRng(input.seed, 1 + pi, i), pauseMs))) violations += 1;
        runs += 1;
        tick();
      }
      heat.push({ ttlMs, pauseMs, runs, violations, p: runs ? violations / runs : 0 });
    });
  }
  options.onProgress?.({ done, total });
  return { fit, points, heat, complete: !stopped, totalRuns: done };
}

/**
 * Default TTLs to try for a scenario: its own TTL × ½, ¾, 1, 1¼, 1½, 2, 3 (whole ms, distinct, ≤ 1 h).
 */
export function defaultTtlsMs(scenario: Scenario): number[] {
  const t = scenario.lease.ttlMs;
  return [...new Set([0.5, 0.75, 1, 1.25, 1.5, 2, 3].map((k) => clampMs(t * k)))];
}

/**
 * Default heat-map pause lengths: the scenario's TTL × 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2 (whole ms,
 * distinct, ≤ 1 h), from pauses that cannot matter to pauses that outlive the lease.
 */
export function defaultHeatPausesMs(scenario: Scenario): number[] {
  const t = scenario.lease.ttlMs;
  return [...new Set([0.05, 0.1, 0.25, 0.5, 1, 1.5, 2].map((k) => clampMs(t * k)))];
}
