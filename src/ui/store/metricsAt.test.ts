import { PRESETS } from '../../sim';
import { deriveRun, metricsAt, runEndMs } from './derive';

describe('metrics at the cursor', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s the fix: counts only grow with the cursor and reach the whole run\'s at its end', (_id, _v, s) => {
    const run = deriveRun(s);
    const end = runEndMs(run);
    expect(metricsAt(run, end)).toEqual(run.metrics);
    let prev = metricsAt(run, 0);
    for (const t of [...new Set(run.events.map((e) => e.atMs))]) {
      const m = metricsAt(run, t);
      expect(m.events).toBe(run.events.filter((e) => e.atMs <= t).length);
      for (const k of ['renewFailures', 'staleWritesRejected', 'duplicateEffects'] as const) expect(m[k], `${k} at ${t} ms`).toBeGreaterThanOrEqual(prev[k]);
      expect(m.acquisitionLatency.count).toBeGreaterThanOrEqual(prev.acquisitionLatency.count);
      prev = m;
    }
    for (const k of ['renewFailures', 'staleWritesRejected', 'duplicateEffects'] as const) expect(prev[k]).toBe(run.metrics[k]);
  });
});
