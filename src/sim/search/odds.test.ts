import { describe, expect, it } from 'vitest';
import { computeOdds, oddsRunDraw, oddsRunScenario, defaultHeatPausesMs, defaultTtlsMs, drawLogNormal, fitLogNormal, oddsNotApplicable, uniform01, validateOddsInput, wilson, Z99, type OddsInput } from './odds';
import { Rng } from '../engine/rng';
import { findPreset } from '../presets';
import { runScenario } from '../engine/run';

const exportLease = findPreset('export-lease-expiry')!.withoutFix;

const base: OddsInput = {
  pauseP50Ms: 1_000,
  pauseP99Ms: 20_000,
  pauseProbability: 0.5,
  crashRate: 0.05,
  restartAfterMs: 1_000,
  ttlsMs: [22_500, 30_000],
  runsPerTtl: 40,
  seed: 7,
  heatPausesMs: [3_000, 30_000],
  heatRuns: 12,
};

function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

describe('fitLogNormal', () => {
  it('puts the median at p50 and the 99th percentile at p99 (over many seeded draws)', () => {
    const d = fitLogNormal(200, 5_000);
    expect(d.mu).toBeCloseTo(Math.log(200), 12);
    expect(d.sigma).toBeCloseTo((Math.log(5_000) - Math.log(200)) / 2.3263, 4);
    const rng = new Rng(42);
    const xs = Array.from({ length: 40_000 }, () => drawLogNormal(rng, d)).sort((a, b) => a - b);
    expect(quantile(xs, 0.5) / 200).toBeGreaterThan(0.97);
    expect(quantile(xs, 0.5) / 200).toBeLessThan(1.03);
    expect(quantile(xs, 0.99) / 5_000).toBeGreaterThan(0.9);
    expect(quantile(xs, 0.99) / 5_000).toBeLessThan(1.1);
  });

  it('gives sigma 0 when p50 = p99 (every pause the same length) and refuses p99 < p50 or p50 ≤ 0', () => {
    expect(fitLogNormal(300, 300).sigma).toBe(0);
    expect(drawLogNormal(new Rng(1), fitLogNormal(300, 300))).toBeCloseTo(300, 9);
    expect(() => fitLogNormal(500, 400)).toThrow(RangeError);
    expect(() => fitLogNormal(0, 400)).toThrow(RangeError);
    expect(Z99).toBeCloseTo(2.3263, 4);
  });

  it('draws uniforms strictly inside (0, 1) with mean ½', () => {
    const rng = new Rng(3);
    let sum = 0;
    for (let i = 0; i < 10_000; i++) {
      const u = uniform01(rng);
      expect(u).toBeGreaterThan(0);
      expect(u).toBeLessThan(1);
      sum += u;
    }
    expect(sum / 10_000).toBeCloseTo(0.5, 1);
  });
});

describe('wilson', () => {
  it('matches known 95% Wilson score intervals', () => {
    const a = wilson(5, 10);
    expect(a.low).toBeCloseTo(0.2366, 4);
    expect(a.high).toBeCloseTo(0.7634, 4);
    const b = wilson(0, 10);
    expect(b.low).toBe(0);
    expect(b.high).toBeCloseTo(0.2775, 4);
    const c = wilson(10, 10);
    expect(c.low).toBeCloseTo(0.7225, 4);
    expect(c.high).toBe(1);
    const d = wilson(1, 100);
    expect(d.low).toBeCloseTo(0.0018, 4);
    expect(d.high).toBeCloseTo(0.0545, 4);
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });

  it('always contains p̂ and narrows as n grows', () => {
    for (const [k, n] of [[3, 7], [50, 200], [199, 200]] as const) {
      const ci = wilson(k, n);
      expect(ci.low).toBeLessThanOrEqual(k / n);
      expect(ci.high).toBeGreaterThanOrEqual(k / n);
    }
    const w = (n: number) => { const ci = wilson(n / 4, n); return ci.high - ci.low; };
    expect(w(400)).toBeLessThan(w(40));
  });
});

describe('computeOdds', () => {
  it('is deterministic: same inputs and seed, same result; another seed, other draws', () => {
    const a = computeOdds(exportLease, base);
    const b = computeOdds(exportLease, base);
    expect(b).toEqual(a);
    expect(a.complete).toBe(true);
    expect(a.totalRuns).toBe(2 * 40 + 2 * 2 * 12);
    const c = computeOdds(exportLease, { ...base, seed: 8 });
    expect([...c.points, ...c.heat].map((p) => p.violations)).not.toEqual([...a.points, ...a.heat].map((p) => p.violations));
  });

  it('draws the same pauses at every TTL (common random numbers): a TTL\'s point does not depend on the others tried', () => {
    const both = computeOdds(exportLease, { ...base, heatPausesMs: [] });
    const one = computeOdds(exportLease, { ...base, ttlsMs: [30_000], heatPausesMs: [] });
    expect(one.points[0]).toEqual(both.points[1]);
  });

  it('counts exactly the runs whose own simulation violates (the remembered answers change nothing)', () => {
    const input = { ...base, runsPerTtl: 60, ttlsMs: [15_000, 22_500], heatPausesMs: [] };
    const r = computeOdds(exportLease, input);
    const draws = Array.from({ length: 60 }, (_v, i) => oddsRunDraw(exportLease, input, i));
    for (const [k, ttl] of input.ttlsMs.entries()) {
      const violations = draws.filter((d) => runScenario(oddsRunScenario(exportLease, ttl, d), { text: false, stopAtFirstViolation: true }).verdict.violations.length > 0).length;
      expect(r.points[k]!.violations).toBe(violations);
      expect(violations).toBeGreaterThan(0);
    }
    expect(r.points[0]!.violations).toBeGreaterThan(r.points[1]!.violations);
    expect(draws.every((d) => d.faults.every((f) => f.kind === 'pause' || f.kind === 'crash'))).toBe(true);
    // Pause probability ½ and crash rate 5% for two workers: about (0.5 × 0.95)² ≈ 23% of runs draw nothing.
    const withoutFaults = draws.filter((d) => d.faults.length === 0).length;
    expect(withoutFaults).toBeGreaterThan(5);
    expect(withoutFaults).toBeLessThan(25);
  });

  it('export-lease-expiry: a TTL far above every pause gives P = 0; one far below the job gives a high P', () => {
    const r = computeOdds(exportLease, { ...base, pauseP50Ms: 500, pauseP99Ms: 3_000, pauseProbability: 1, crashRate: 0, ttlsMs: [5_000, 200_000], heatPausesMs: [] });
    const [low, high] = r.points;
    expect(low!.p).toBeGreaterThan(0.8);
    expect(high!.violations).toBe(0);
    expect(high!.high).toBeLessThan(0.1);
    // Each point carries its Wilson interval.
    expect(low!.low).toBeCloseTo(wilson(low!.violations, low!.runs).low, 12);
  });

  it('the heat map: no pause long enough to outlive a TTL far above the job breaks it; a short TTL breaks with any pause', () => {
    const r = computeOdds(exportLease, { ...base, crashRate: 0, ttlsMs: [5_000, 120_000], heatPausesMs: [1_000, 10_000], runsPerTtl: 1, heatRuns: 20 });
    expect(r.heat.map((c) => [c.ttlMs, c.pauseMs])).toEqual([[5_000, 1_000], [5_000, 10_000], [120_000, 1_000], [120_000, 10_000]]);
    expect(r.heat.filter((c) => c.ttlMs === 120_000).every((c) => c.violations === 0)).toBe(true);
    expect(r.heat.find((c) => c.ttlMs === 5_000 && c.pauseMs === 1_000)!.p).toBeGreaterThan(0.8);
  });

  it('without pauses or crashes every run is the fault-free run: P is 0 or 1', () => {
    const r = computeOdds(exportLease, { ...base, pauseProbability: 0, crashRate: 0, ttlsMs: [5_000, 60_000], heatPausesMs: [] });
    expect(r.points.map((p) => p.p)).toEqual([1, 0]);
  });

  it('stops when asked, says so, and reports progress up to the runs made', () => {
    const seen: number[] = [];
    let n = 0;
    const r = computeOdds(exportLease, base, { shouldStop: () => ++n >= 15, onProgress: (p) => seen.push(p.done), progressEvery: 5 });
    expect(r.complete).toBe(false);
    expect(r.totalRuns).toBe(15);
    expect(seen).toEqual([5, 10, 15, 15]);
    expect(r.points[0]!.runs).toBe(15);
  });

  it('refuses bad inputs with sentences', () => {
    expect(validateOddsInput(base)).toEqual([]);
    expect(validateOddsInput({ ...base, pauseP99Ms: 10 })).toContain('p99 must be at least p50');
    expect(validateOddsInput({ ...base, crashRate: 2 })).toContain('crash rate must be between 0 and 1');
    expect(validateOddsInput({ ...base, ttlsMs: [] })).toContain('give 1 to 40 TTLs');
    expect(() => computeOdds(exportLease, { ...base, runsPerTtl: 0 })).toThrow(/runs per TTL/);
  });
});

describe('applicability and defaults', () => {
  it('applies to lease scenarios only, saying why not otherwise', () => {
    expect(oddsNotApplicable(exportLease)).toBeNull();
    const invoice = findPreset('invoice-race')!.withoutFix;
    expect(oddsNotApplicable(invoice)).toMatch(/takes no lease/);
  });

  it('spreads the default TTLs and heat-map pauses around the scenario\'s TTL', () => {
    expect(defaultTtlsMs(exportLease)).toEqual([15_000, 22_500, 30_000, 37_500, 45_000, 60_000, 90_000]);
    expect(defaultHeatPausesMs(exportLease)).toEqual([1_500, 3_000, 7_500, 15_000, 30_000, 45_000, 60_000]);
  });
});
