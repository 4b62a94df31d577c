import { describe, expect, it } from 'vitest';
import { duplicateEffects, findPreset, INVARIANT_TEXT, runScenario } from '../../sim';
import { answerLine, askFor, checkedInvariants, drawQuestion, optionMark, revealLine, rightOptions } from './question';
import { applicableKinds, withoutFaults, withSchedule } from '../../sim/search/search';
import { LESSON_IDS } from '../../share/link';
import { gradeDesign, needlessChoices } from '../interview/kit';
import { SWITCHES } from '../mechanism/switches';
import { findInThread } from './testing';
import { LESSON_PATH, lessonQuestion, nextLesson } from './lessons';


describe('the lesson path', () => {
  it('follows the issue: invariant → unique constraint → row lock → advisory lock → lease → fencing → idempotency → recovery, one lesson per link id', () => {
    expect(LESSON_PATH.map((l) => l.id)).toEqual([...LESSON_IDS]);
    expect(LESSON_PATH.map((l) => l.step)).toEqual(['Start from the invariant', 'Unique constraint', 'Row lock', 'Advisory lock', 'Lease', 'Fencing token', 'Idempotency', 'Recovery']);
    expect(nextLesson('invariant')?.id).toBe('unique');
    expect(nextLesson('recovery')).toBeUndefined();
  });

  for (const l of LESSON_PATH) {
    it(`${l.id}: the preset exists, its kinds apply, its fix passes the exercise${l.id === 'invariant' ? ' (so does the starting design: no mechanism needed)' : ' and the starting design does not'}`, async () => {
      const preset = findPreset(l.presetId)!;
      expect(preset).toBeDefined();
      for (const k of l.kinds) expect(applicableKinds(withoutFaults(preset.withoutFix))).toContain(k);
      const fixed = await gradeDesign(preset.withFix, l.kinds, l.maxFaults, findInThread);
      expect(fixed.safe, JSON.stringify(fixed.safe ? null : fixed.schedule)).toBe(true);
      const start = await gradeDesign(preset.withoutFix, l.kinds, l.maxFaults, findInThread);
      expect(start.safe).toBe(l.id === 'invariant');
    }, 60_000);
  }

  for (const l of LESSON_PATH) {
    it(`${l.id}: its question is the prediction's — one question, which schedules break the invariants the runs are checked against`, () => {
      const design = withoutFaults(findPreset(l.presetId)!.withoutFix);
      const ask = askFor(design);
      const q = lessonQuestion(l, ask);
      // The scene asks nothing of its own: a second question would be one the options do not answer.
      expect(l.scene).not.toContain('?');
      expect(q.split('?')).toHaveLength(2);
      expect(q.endsWith('?')).toBe(true);
      expect(q).toMatch(/Which of these fault schedules (breaks|produce) /);
      // The invariants it names are exactly those a run of the scenario can break.
      const named = Object.entries(INVARIANT_TEXT).filter(([, t]) => q.includes(`“${t}”`)).map(([k]) => k).sort();
      expect(named).toEqual(checkedInvariants(design).sort());
    });
  }

  for (const l of LESSON_PATH) {
    it(`${l.id}: property over several draws — the question, each option's mark, the answer and the reveal agree with the runs`, async () => {
      const design = withoutFaults(findPreset(l.presetId)!.withoutFix);
      const ask = askFor(design);
      const declared = design.invariants.map((i) => i.kind);
      let hits = 0;
      let misses = 0;
      for (const seed of [0, 1, 2, 3, 4, 5]) {
        const q = await drawQuestion(design, l.kinds, l.maxFaults, seed, findInThread);
        expect(q.ask).toEqual(ask);
        for (const o of q.options) {
          const run = runScenario(withSchedule(design, o.faults));
          const tag = `${l.id} seed ${seed}: ${o.words}`;
          // Offered only when the run answers the question (never cut short).
          expect(run.verdict.status, tag).not.toBe('inconclusive');
          // Whatever a run breaks is an invariant the question names: nothing breaks unasked.
          for (const v of run.verdict.violations) expect(ask.kind === 'breaks' && ask.invariants.includes(v.invariant), `${tag} breaks ${v.invariant}, not named`).toBe(true);
          // A run breaks only what the scenario declares (no hidden always-on check surfaces unnamed).
          for (const v of run.verdict.violations) expect(declared, tag).toContain(v.invariant);
          const dup = duplicateEffects(run.scenario, run.events).length > 0;
          expect(o.breaks, tag).toBe(run.verdict.status === 'violated');
          expect(o.repeats, tag).toBe(dup);
          expect(o.hit, tag).toBe(ask.kind === 'breaks' ? run.verdict.status === 'violated' : dup);
          // The mark and the reveal say what the run does: "holds" never stands next to a DUPLICATE the reveal leaves unsaid.
          const mark = optionMark(ask, o);
          const reveal = revealLine(ask, o);
          if (ask.kind === 'breaks') expect(mark).toBe(o.hit ? 'breaks' : 'holds');
          else expect(mark).toBe(o.hit ? 'more than once' : 'not more than once');
          if (o.breaks) expect(reveal).toContain(run.verdict.violations[0]!.message);
          for (const n of run.verdict.notes) expect(reveal, tag).toContain(n.message);
          if (dup && !o.breaks) expect(reveal, `${tag}: the timeline marks a DUPLICATE`).toMatch(/more than once|produced \d+ times|performed \d+ times/);
          if (o.hit) hits++;
          else misses++;
        }
        // The answer line names exactly the ticked letters.
        const letters = rightOptions(q).map((i) => String.fromCharCode(65 + i));
        const line = answerLine(q);
        if (letters.length > 0) expect(line).toContain(letters.join(', '));
        else expect(line).toMatch(/^None of them/);
      }
      // Never trivially "none" in every draw: the question has a real answer. ("All" can be the truth:
      // in the unique and row-lock lessons every single pause still breaks, timing alone does.)
      expect(hits, `${l.id}: some option is ticked in some draw`).toBeGreaterThan(0);
      // A lesson whose point is that nothing breaks asks about the repeat, and its draws tell schedules apart.
      if (ask.kind === 'repeats') expect(misses, `${l.id}: some option is not ticked in some draw`).toBeGreaterThan(0);
    }, 120_000);
  }

  for (const l of LESSON_PATH) {
    it(`${l.id}: the catalogue's fix, with what it did not need undone, is a weakest design: it holds, and nothing in it is needless`, async () => {
      const p = findPreset(l.presetId)!;
      let design = p.withFix;
      for (let i = 0; i < 5; i++) {
        const needless = await needlessChoices(design, p.withoutFix, l.kinds, l.maxFaults, findInThread);
        if (needless.length === 0) break;
        const d = SWITCHES.find((x) => x.id === needless[0]!.id);
        design = d ? d.set(design, d.get(p.withoutFix)) : { ...design, lease: { ...design.lease, ttlMs: p.withoutFix.lease.ttlMs } };
      }
      expect((await gradeDesign(design, l.kinds, l.maxFaults, findInThread)).safe).toBe(true);
      expect(await needlessChoices(design, p.withoutFix, l.kinds, l.maxFaults, findInThread)).toEqual([]);
    }, 60_000);
  }
});
