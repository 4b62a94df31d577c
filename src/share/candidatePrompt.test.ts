/** The candidate's prompt says only what the scenario's data says (issue 12). */
import { describe, expect, it } from 'vitest';
import { PRESETS, findPreset } from '../sim';
import { candidatePrompt } from './candidatePrompt';

describe("the candidate's prompt", () => {
  it('unsafe-release: names no file its job never writes (it said "writing exports/2026-11-30.csv", a leftover default)', () => {
    const s = findPreset('unsafe-release')!.withoutFix;
    const p = candidatePrompt(s);
    expect(p.title).toBe('Interview: 3 workers running job rebuild-index');
    expect(p.description).not.toContain(s.destination.target);
  });

  it('for every preset: the destination is named only when some worker has an effect step', () => {
    for (const pr of PRESETS) for (const s of [pr.withoutFix, pr.withFix]) {
      if (s.job.kind !== 'external') continue;
      const effect = s.workers.some((w) => w.steps.some((st) => st.do === 'effect'));
      const p = candidatePrompt(s);
      expect(p.title.includes(s.destination.target), `${pr.id}`).toBe(effect);
    }
  });
});
