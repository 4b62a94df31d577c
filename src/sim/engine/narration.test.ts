import { describe, expect, it } from 'vitest';
import { PRESETS, runScenario, findPreset } from '..';
import { explained, splitNarration } from './narration';

describe("a narration's explanation part (interview mode reads the fact)", () => {
  it('splits a sentence worded with explained: the whole sentence unchanged, the fact without the hint', () => {
    expect(splitNarration(explained('B writes row 7 (UPDATE 1)', '; the UPDATE does not check the fence'))).toEqual({ narration: 'B writes row 7 (UPDATE 1); the UPDATE does not check the fence.', fact: 'B writes row 7 (UPDATE 1).' });
    expect(splitNarration(`A uploads x${explained(' with token 3', ' — which the destination ignores', '')}; in progress.`)).toEqual({ narration: 'A uploads x with token 3 — which the destination ignores; in progress.', fact: 'A uploads x with token 3; in progress.' });
    expect(splitNarration('A takes the lease.')).toEqual({ narration: 'A takes the lease.', fact: undefined });
  });

  it('every preset, both variants: no text carries a marker, a fact is the narration with something taken out, and a text-less run has none', () => {
    let withFact = 0;
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        for (const e of runScenario(s).events) {
          expect(`${e.narration}${e.fact ?? ''}${e.command ?? ''}${e.reply ?? ''}`).not.toMatch(/[\uE000\uE001]/);
          if (e.fact === undefined) continue;
          withFact++;
          expect(e.fact.length).toBeLessThan(e.narration.length);
          expect(e.fact).not.toBe('');
        }
        expect(runScenario(s, { text: false }).events.some((e) => e.fact !== undefined)).toBe(false);
      }
    }
    expect(withFact).toBeGreaterThan(0);
  });

  it("fenced-db-write: the facts say what each UPDATE did, not that it lacks the fence condition (found by a newcomer)", () => {
    const events = runScenario(findPreset('fenced-db-write')!.withoutFix).events;
    const b = events.find((e) => e.narration.includes('does not check the fence'))!;
    expect(b.fact).toBe('B writes row 7 of documents and sets fence = 34 (UPDATE 1).');
    const a = events.find((e) => e.narration.includes('nothing in the UPDATE compares the tokens'))!;
    expect(a.fact).toBe("A's UPDATE overwrites B's row (fence 34) with its own token 33 (UPDATE 1).");
  });

  it('a check that finds more than one row for the key says how many, as its reply does (admin-bypass said "the row" over SELECT 2; found by a newcomer)', () => {
    const e17 = runScenario(findPreset('admin-bypass')!.withoutFix).events.find((e) => e.id === 'e17')!;
    expect(e17.reply).toMatch(/^SELECT 2 → id=1, .* \| id=2, /);
    expect(e17.narration).toBe('B finds 2 rows for this key already there (id 1, id 2), where there should be one, and loads them.');
    // Every preset, both variants: a check's sentence counts the rows its reply returned.
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        for (const e of runScenario(s).events) {
          const n = /^SELECT (\d+)/.exec(e.reply ?? '')?.[1];
          if (n === undefined || !/ finds /.test(e.narration) || s.job.kind !== 'insertOnce') continue;
          if (n === '0') expect(e.narration, `${p.id} ${e.id}`).toMatch(/finds no row/);
          else if (n === '1') expect(e.narration, `${p.id} ${e.id}`).toMatch(/finds the row already there/);
          else expect(e.narration, `${p.id} ${e.id}`).toContain(`finds ${n} rows`);
        }
      }
    }
  });
});
