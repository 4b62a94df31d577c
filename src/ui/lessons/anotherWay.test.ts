// A learner who makes a lesson hold with another mechanism than the catalogue's is told so
// (LessonView's done line), rather than a takeaway that reads as if theirs were the catalogue's.
import { findPreset } from '../../sim';
import { SWITCHES } from '../mechanism/switches';
import { gradeDesign, needlessChoices } from '../interview/kit';
import { findInThread } from './testing';
import { findLesson } from './lessons';
import { withinCatalogueFix } from './LessonView';

const set = (s: ReturnType<typeof findPreset> & object, id: string, v: string | boolean) => SWITCHES.find((d) => d.id === id)!.set(s.withoutFix, v);

describe('withinCatalogueFix', () => {
  it('the catalogue\'s fix, or less of it, is the catalogue\'s way; an idempotency key in the fencing lesson is another way that holds', async () => {
    const p = findPreset('export-lease-expiry')!;
    expect(withinCatalogueFix(p.withFix, p.withFix, p.withoutFix)).toBe(true);
    const idem = set(p, 'idempotencyKey', true);
    const lesson = findLesson('fencing')!;
    const g = await gradeDesign(idem, lesson.kinds, lesson.maxFaults, findInThread);
    expect(g.safe).toBe(true);
    expect(await needlessChoices(idem, p.withoutFix, lesson.kinds, lesson.maxFaults, findInThread)).toEqual([]);
    expect(withinCatalogueFix(idem, p.withFix, p.withoutFix)).toBe(false);
    // renew-partition: fencing alone is less than the catalogue's fix (which also stops on a failed renewal).
    const r = findPreset('renew-partition')!;
    expect(withinCatalogueFix(set(r, 'fencing', true), r.withFix, r.withoutFix)).toBe(true);
  }, 60_000);
});
