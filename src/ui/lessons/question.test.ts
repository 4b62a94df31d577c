import { describe, expect, it } from 'vitest';
import { findPreset, runScenario } from '../../sim';
import { withoutFaults } from '../../sim/search/search';
import { rightOptions, drawQuestion, isRightPick, judgeSchedule } from './question';
import { findInThread } from './testing';

const lease = findPreset('export-lease-expiry')!;

describe('a lesson question drawn from the fault search', () => {
  it('holds the search counterexample among its options, and which options break is what running each one says', async () => {
    const design = withoutFaults(lease.withoutFix);
    const ce = (await findInThread(design, 1, ['pause']))!;
    const q = await drawQuestion(lease.withoutFix, ['pause'], 1, 3, findInThread);
    expect(q.options.length).toBe(3);
    expect(q.options.some((o) => JSON.stringify(o.faults) === JSON.stringify(ce.faults))).toBe(true);
    for (const o of q.options) {
      const run = runScenario({ ...design, faults: [...o.faults] });
      expect(o.breaks).toBe(run.verdict.status === 'violated');
      if (o.breaks) {
        expect(o.cited.map((c) => c.id)).toEqual(run.verdict.violations[0]!.eventIds);
        expect(o.broke).toBe(run.verdict.violations[0]!.message);
      } else expect(o.cited.map((c) => c.id)).toEqual(run.verdict.notes[0]?.eventIds ?? []);
    }
    expect(rightOptions(q).length).toBeGreaterThan(0);
  });

  it('is seeded: the same seed draws the same question, other seeds draw others', async () => {
    const a = await drawQuestion(lease.withoutFix, ['pause'], 1, 7, findInThread);
    const b = await drawQuestion(lease.withoutFix, ['pause'], 1, 7, findInThread);
    expect(a).toEqual(b);
    const words = new Set<string>();
    for (let seed = 0; seed < 6; seed++) words.add((await drawQuestion(lease.withoutFix, ['pause'], 1, seed, findInThread)).options.map((o) => o.words).join(' | '));
    expect(words.size).toBeGreaterThan(1);
  });

  it('grades a pick: exactly the breaking options', async () => {
    const q = await drawQuestion(lease.withoutFix, ['pause'], 1, 1, findInThread);
    const right = rightOptions(q);
    expect(isRightPick(q, right)).toBe(true);
    expect(isRightPick(q, [...right].reverse())).toBe(true);
    const wrong = q.options.map((_o, i) => i).filter((i) => !right.includes(i));
    expect(isRightPick(q, [...right, ...wrong])).toBe(wrong.length === 0);
    expect(isRightPick(q, right.slice(1))).toBe(right.length <= 1 ? right.length === 0 : false);
  });

  it('words the empty schedule and judges it by its run', () => {
    const o = judgeSchedule(findPreset('invoice-race')!.withoutFix, []);
    expect(o.words).toBe('No fault at all');
    expect(o.breaks).toBe(true);
  });
});

describe('a lesson question\'s options read differently', () => {
  it('for every lesson and several seeds: no two options have the same visible words', async () => {
    const { LESSON_PATH } = await import('./lessons');
    const { findPreset: find } = await import('../../sim');
    const { drawQuestion: draw, optionKey } = await import('./question');
    const { findInThread: inThread } = await import('./testing');
    for (const l of LESSON_PATH) {
      for (const seed of [0, 1, 2, 3]) {
        const q = await draw(find(l.presetId)!.withoutFix, l.kinds, l.maxFaults, seed, inThread);
        const keys = q.options.map((o) => optionKey(o.words));
        expect(new Set(keys).size, `${l.id} seed ${seed}: ${JSON.stringify(q.options.map((o) => o.words))}`).toBe(keys.length);
        expect(q.options.length).toBeGreaterThanOrEqual(2);
      }
    }
  }, 120_000);
});
