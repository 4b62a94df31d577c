/**
 * Same scenario in, same trace out: a fast-check property over random valid scenarios (presets
 * with random seeds, start times, mechanism switches and faults), plus golden trace hashes for
 * every preset so an unintended change in behaviour or wording shows up here.
 */
import fc from 'fast-check';
import { PRESETS } from '../presets';
import { runScenario } from './run';
import { validateScenario } from '../scenario/validate';
import type { Scenario } from '../scenario/schema';
import { scenarioArb } from '../testing/scenarioArb';

/**
 * Random scenarios per property. `npm run mutate` (vitest.mutate.config.ts sets
 * LOCKSCOPE_MUTATION) runs these tests once per mutant, so there a smaller sample keeps a full run
 * within tens of minutes; the explicit tests, not the sample, are meant to kill mutants.
 */
const PROPERTY_RUNS = process.env.LOCKSCOPE_MUTATION === '1' ? 25 : 300;

describe('determinism', () => {
  it('the same valid scenario run twice gives the same trace (byte for byte)', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const valid = validateScenario(JSON.parse(JSON.stringify(s)));
        if (!valid.ok) return true; // the generator can place a fault oddly; only valid scenarios count
        const a = runScenario(valid.scenario);
        const b = runScenario(JSON.parse(JSON.stringify(valid.scenario)) as Scenario);
        expect(JSON.stringify(b.events)).toBe(JSON.stringify(a.events));
        expect(b.traceHash).toBe(a.traceHash);
        expect(b.verdict).toEqual(a.verdict);
        return true;
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('every run of a random scenario ends without throwing and keeps time monotonic', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const valid = validateScenario(JSON.parse(JSON.stringify(s)));
        if (!valid.ok) return true;
        const r = runScenario(valid.scenario);
        for (let i = 1; i < r.events.length; i++) expect(r.events[i]!.atMs).toBeGreaterThanOrEqual(r.events[i - 1]!.atMs);
        expect(r.events.every((e, i) => e.id === `e${i + 1}`)).toBe(true);
        return true;
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('regression: a worker paused past its acquire deadline gives up when it resumes (time never runs backwards)', () => {
    // Found by the property above: fence-ignored, acquireTimeoutMs 1000, A paused 40 s at 3 s.
    const base = PRESETS.find((p) => p.id === 'fence-ignored')!.withoutFix;
    const s: Scenario = {
      ...base,
      seed: 0,
      mechanism: { ...base.mechanism, idempotencyKey: true, acquireTimeoutMs: 1000 },
      workers: [{ ...base.workers[0]!, startMs: 2000 }, { ...base.workers[1]!, startMs: 0 }],
      faults: [{ kind: 'pause', worker: 'A', atMs: 3000, pauseMs: 40_000 }, { kind: 'partition', worker: 'A', atMs: 13_884, durationMs: 29_117 }],
    };
    const r = runScenario(s);
    for (let i = 1; i < r.events.length; i++) expect(r.events[i]!.atMs).toBeGreaterThanOrEqual(r.events[i - 1]!.atMs);
    const gaveUp = r.events.find((e) => e.actor === 'A' && e.narration.includes('gave up waiting'))!;
    expect(gaveUp.atMs).toBe(43_000);
  });

  it('each preset has a stable trace hash', () => {
    const hashes = Object.fromEntries(PRESETS.flatMap((p) => [[`${p.id}`, runScenario(p.withoutFix).traceHash], [`${p.id} --fixed`, runScenario(p.withFix).traceHash]]));
    expect(hashes).toMatchSnapshot();
  });
});
