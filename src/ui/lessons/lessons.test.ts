import { describe, expect, it } from 'vitest';
import { findPreset, INVARIANT_TEXT } from '../../sim';
import { applicableKinds, withoutFaults } from '../../sim/search/search';
import { LESSON_IDS } from '../../share/link';
import { gradeDesign } from '../interview/kit';
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
      const invariants = findPreset(l.presetId)!.withoutFix.invariants.map((i) => INVARIANT_TEXT[i.kind]);
      const q = lessonQuestion(l, invariants);
      // The scene asks nothing of its own: a second question would be one the options do not answer.
      expect(l.scene).not.toContain('?');
      expect(q.split('?')).toHaveLength(2);
      expect(q.endsWith('?')).toBe(true);
      expect(q).toMatch(/Which of these fault schedules breaks /);
      for (const t of invariants) expect(q).toContain(`“${t}”`);
    });
  }
});
