import { candidatePrompt, neutralFenceCounter } from './candidatePrompt';
import fc from 'fast-check';
import { compressToEncodedURIComponent } from 'lz-string';
import { decodeShare, encodeShare, shareFromScenario, type ShareState } from './link';
import { PRESETS, findPreset, runScenario } from '../sim';

const link = (payload: unknown) => `v=1&s=${compressToEncodedURIComponent(JSON.stringify(payload))}`;
const notes = { t: 'Abcdefghijklmnop_1234', a: 'Compare-and-delete release', q: [{ q: 'What if A pauses?', x: [{ kind: 'pause' as const, worker: 'A', atMs: 1000, pauseMs: 40_000 }] }], r: ['Names the invariant'] };

describe('interview links', () => {
  it("a candidate's link carries the scenario in full without its preset id, and round-trips the grading", () => {
    for (const p of PRESETS) {
      const st = shareFromScenario(p.withoutFix, { i: 1, g: { k: ['pause', 'crash'], n: 2 } });
      expect(st.p).toBeUndefined();
      const text = encodeShare(st);
      const r = decodeShare(text);
      expect(r.ok).toBe(true);
      if (!r.ok) continue;
      expect(r.state).toMatchObject({ i: 1, g: { k: ['pause', 'crash'], n: 2 } });
      expect(r.scenario.id).toBeUndefined();
      // In full, but worded as the candidate's prompt (the preset's title and description may tell
      // the answer), filed under one lesson for every interview (the preset's says where it is taught),
      // and with a fencing counter the run never reads set by one rule (a prepared one told the fix).
      const { id: _id, title: _t, description: _d, lesson: _l, ...rest } = p.withoutFix;
      expect(r.scenario).toEqual({ ...rest, lease: neutralFenceCounter(p.withoutFix), lesson: 'invariants', ...candidatePrompt(p.withoutFix) });
      expect(runScenario(r.scenario).traceHash).toBe(runScenario(p.withoutFix).traceHash);
      expect(JSON.stringify(st)).not.toContain(p.withoutFix.description);
    }
  });

  it("an interviewer's link round-trips its notes; a candidate's link refuses them, and a preset id", () => {
    const preset = findPreset(PRESETS[0]!.id)!;
    const st = shareFromScenario(preset.withoutFix, { i: 2, g: { k: [], n: 1 }, z: notes });
    const r = decodeShare(encodeShare(st));
    expect(r.ok && r.state.z).toEqual(notes);
    expect(decodeShare(link({ ...shareFromScenario(preset.withoutFix, { i: 1 }), z: notes })).ok).toBe(false);
    expect(decodeShare(link({ p: preset.id, i: 1 })).ok).toBe(false);
    expect(decodeShare(link({ p: preset.id, i: 2 })).ok).toBe(false); // notes missing
  });

  it('refuses hostile interview fields with a structured error, never throwing', () => {
    const preset = PRESETS[0]!;
    const base = shareFromScenario(preset.withoutFix, {});
    const bad: unknown[] = [
      { ...base, i: 3 },
      { ...base, i: 1, g: { k: ['<script>'], n: 1 } },
      { ...base, i: 1, g: { k: [], n: 9 } },
      { ...base, i: 2, z: { ...notes, t: 'short' } },
      { ...base, i: 2, z: { ...notes, a: 'x'.repeat(10_000) } },
      { ...base, i: 2, z: { ...notes, q: Array.from({ length: 20 }, () => notes.q[0]) } },
    ];
    for (const b of bad) {
      const r = decodeShare(link(b));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.length).toBeGreaterThan(0);
    }
    fc.assert(fc.property(fc.anything(), fc.anything(), fc.anything(), (i, g, z) => {
      const r = decodeShare(link({ ...base, i, g, z } as ShareState));
      return r.ok === true || r.errors.length > 0;
    }), { numRuns: 300 });
  });
});
